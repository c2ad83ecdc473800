/** fetch(), failing on an HTTP error status as it fails on a network error. */
export async function fetchOk(url, signal) {
  const response = await fetch(url, { signal });
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response;
}
