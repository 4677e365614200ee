/** Elements built with properties and text, never from HTML strings: an event's fields are
 *  whatever a client sent, and none of it may become markup. */

type Child = Node | string | null | false;
type Props = Record<string, string | number | boolean | EventListener | null | undefined>;

export const h = <K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] => {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.slice(2).toLowerCase(), value);
    else if (value === true) element.setAttribute(name, '');
    else element.setAttribute(name, String(value));
  }
  append(element, ...children);
  return element;
};

export const append = (parent: Node, ...children: Child[]): void => {
  for (const child of children) {
    if (child === null || child === false) continue;
    parent.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
  }
};

export const clear = (element: Element): void => element.replaceChildren();
