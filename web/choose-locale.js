// Sends a visitor of the site's root to the locale their browser prefers,
// when the site has it; otherwise the page's links let them choose.
const offered = new Map(
  [...document.querySelectorAll('link[rel="alternate"][hreflang]')]
    .filter((link) => link.hreflang !== "x-default")
    .map((link) => [link.hreflang.toLowerCase(), link.href]),
);

for (const tag of navigator.languages ?? [navigator.language]) {
  const wanted = tag.toLowerCase();
  const href = offered.get(wanted) ?? offered.get(wanted.split("-")[0]);
  if (href) {
    location.replace(href);
    break;
  }
}
