// On a phone the navigation strips (main navigation, admin sections) scroll sideways; the current page's link can
// start off screen, so the strip is scrolled to show it. A ResizeObserver on the links runs this once they are
// laid out (pages mount after their data arrives) and again if a link grows (the pending-orders badge).
export function revealActive(strip: HTMLElement): void {
  const reveal = (): void => {
    const active = strip.querySelector<HTMLElement>('a.active');
    if (!active || !strip.isConnected || strip.scrollWidth <= strip.clientWidth) return;
    const left = active.offsetLeft - strip.offsetLeft;
    if (left < strip.scrollLeft || left + active.offsetWidth > strip.scrollLeft + strip.clientWidth) {
      strip.scrollLeft = Math.max(0, left - (strip.clientWidth - active.offsetWidth) / 2);
    }
  };
  const observer = new ResizeObserver(reveal);
  for (const a of Array.from(strip.querySelectorAll('a'))) observer.observe(a);
}
