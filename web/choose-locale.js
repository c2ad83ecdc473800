// Sends a visitor of the site's root to the locale their browser prefers,
// or to the first one the site lists (English) when it has none of theirs.
// Without script, the page's links let them choose.
const offered = new Map(
  [...document.querySelectorAll(".choices a[hreflang]")].map((link) => [link.hreflang.toLowerCase(), link.href]),
);

function chosen() {
  for (const tag of navigator.languages ?? [navigator.language]) {
    const wanted = tag.toLowerCase();
    const href = offered.get(wanted) ?? offered.get(wanted.split("-")[0]);
    if (href) return href;
  }
  return offered.values().next().value;
}

location.replace(chosen());
