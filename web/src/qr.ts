// A QR code the server drew (an SVG from the qrcode package: no user input inside), parsed as SVG rather than
// assigned as HTML, at a size a phone camera reads from a screen.
export function qrImage(svgText: string, testId: string, size = 220): Element {
  const doc = new DOMParser().parseFromString(svgText, 'image/svg+xml');
  const el = document.importNode(doc.documentElement, true);
  el.setAttribute('class', 'qr');
  el.setAttribute('width', String(size));
  el.setAttribute('height', String(size));
  el.setAttribute('data-testid', testId);
  el.setAttribute('role', 'img');
  return el;
}
