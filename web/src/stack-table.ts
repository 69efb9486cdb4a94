// On a phone a wide table of records (orders: nine columns with action buttons at the far right) hides what
// matters past the right edge. Such a table can be marked to read as one card per row there instead: every
// cell labelled with its column (styles.css, .table-wrap.stack under 520px). Desktop layout is unchanged.
export function stackOnPhone(el: HTMLElement): HTMLElement {
  const table = el.querySelector('table');
  if (!table) return el; // the "nothing here" paragraph
  el.classList.add('stack');
  const heads = Array.from(table.querySelectorAll('thead th'), (th) => th.textContent ?? '');
  for (const tr of Array.from(table.querySelectorAll('tbody tr'))) {
    Array.from(tr.children).forEach((td, i) => {
      td.setAttribute('data-label', heads[i] ?? '');
    });
  }
  return el;
}
