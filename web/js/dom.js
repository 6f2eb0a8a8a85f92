// The one DOM helper the panels share.

/** A new `tag` element holding `text`, with `className` when given. */
export function element(tag, text, className) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  node.textContent = text;
  return node;
}
