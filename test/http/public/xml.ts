/** A strict reader of the XML the public renderers write (Atom, SVG): no XML parser is among the
 *  project's packages, so this one checks well-formedness as XML 1.0 defines it for what they
 *  use (a prolog, elements, attributes, text, the five entities and character references) and
 *  throws on anything else; the browser tests parse the same documents with Chromium's. */

export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  /** The element's own text, entities resolved. */
  text: string;
}

const NAME = /^[A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?/;
const ENTITY = /^&(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

const decode = (raw: string, where: string): string => {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === '<') throw new Error(`a raw < in ${where}`);
    if (c !== '&') {
      out += c;
      continue;
    }
    const m = ENTITY.exec(raw.slice(i));
    if (m === null) throw new Error(`a bare & in ${where}: ${raw.slice(i, i + 12)}`);
    const body = m[0].slice(1, -1);
    out += body.startsWith('#x')
      ? String.fromCodePoint(Number.parseInt(body.slice(2), 16))
      : body.startsWith('#')
        ? String.fromCodePoint(Number(body.slice(1)))
        : NAMED[body];
    i += m[0].length - 1;
  }
  return out;
};

export const parseXml = (xml: string): XmlElement => {
  let at = 0;
  const rest = () => xml.slice(at);
  const skipSpace = () => {
    while (at < xml.length && /\s/.test(xml[at]!)) at++;
  };
  if (xml.startsWith('<?xml')) {
    const end = xml.indexOf('?>');
    if (end === -1) throw new Error('an unclosed prolog');
    at = end + 2;
  }
  skipSpace();
  const element = (): XmlElement => {
    if (xml[at] !== '<') throw new Error(`an element expected at ${at}: ${rest().slice(0, 20)}`);
    at++;
    const name = NAME.exec(rest())?.[0];
    if (name === undefined) throw new Error(`a bad element name at ${at}`);
    at += name.length;
    const attrs: Record<string, string> = {};
    for (;;) {
      const before = at;
      skipSpace();
      if (xml.startsWith('/>', at)) {
        at += 2;
        return { name, attrs, children: [], text: '' };
      }
      if (xml[at] === '>') {
        at++;
        break;
      }
      if (before === at) throw new Error(`no space before an attribute of <${name}> at ${at}`);
      const attr = NAME.exec(rest())?.[0];
      if (attr === undefined) throw new Error(`a bad attribute in <${name}> at ${at}: ${rest().slice(0, 20)}`);
      at += attr.length;
      if (xml[at] !== '=') throw new Error(`attribute ${attr} of <${name}> has no value`);
      const quote = xml[at + 1];
      if (quote !== '"' && quote !== "'") throw new Error(`attribute ${attr} of <${name}> is not quoted`);
      const end = xml.indexOf(quote, at + 2);
      if (end === -1) throw new Error(`attribute ${attr} of <${name}> is not closed`);
      if (attr in attrs) throw new Error(`attribute ${attr} twice in <${name}>`);
      attrs[attr] = decode(xml.slice(at + 2, end), `attribute ${attr} of <${name}>`);
      at = end + 1;
    }
    const children: XmlElement[] = [];
    let text = '';
    for (;;) {
      const next = xml.indexOf('<', at);
      if (next === -1) throw new Error(`<${name}> is not closed`);
      text += decode(xml.slice(at, next), `the text of <${name}>`);
      at = next;
      if (xml.startsWith('<!--', at)) {
        const end = xml.indexOf('-->', at);
        if (end === -1) throw new Error('an unclosed comment');
        at = end + 3;
      } else if (xml.startsWith('</', at)) {
        const close = `</${name}`;
        if (!xml.startsWith(close, at)) throw new Error(`<${name}> closed by ${rest().slice(0, 20)}`);
        at += close.length;
        skipSpace();
        if (xml[at] !== '>') throw new Error(`a bad end tag of <${name}>`);
        at++;
        return { name, attrs, children, text };
      } else {
        children.push(element());
      }
    }
  };
  const root = element();
  skipSpace();
  if (at !== xml.length) throw new Error(`content after the root element: ${rest().slice(0, 20)}`);
  return root;
};

/** Every element under `root` (itself included) named `name`. */
export const findAll = (root: XmlElement, name: string): XmlElement[] => [
  ...(root.name === name ? [root] : []),
  ...root.children.flatMap((c) => findAll(c, name)),
];

export const child = (el: XmlElement, name: string): XmlElement | undefined => el.children.find((c) => c.name === name);
