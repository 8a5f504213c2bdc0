// The page's language for scripts: t("text") and t("text %(name)s", {name: value}).
// The translations come with the page as JSON (id="i18n"); a string not there is English.
"use strict";
(function () {
  const node = document.getElementById("i18n");
  const messages = node ? JSON.parse(node.textContent) : {};
  window.t = function (message, values) {
    const text = Object.prototype.hasOwnProperty.call(messages, message) ? messages[message] : message;
    if (!values) return text;
    return text.replace(/%\((\w+)\)[sd]/g, (whole, name) =>
      Object.prototype.hasOwnProperty.call(values, name) ? String(values[name]) : whole);
  };
  // the translated template as nodes, each %(name)s its value (a node, such as an isolated
  // name or a card chip, kept as it is; anything else as text)
  window.tNodes = function (template, values) {
    const parts = [];
    template.split(/(%\(\w+\)s)/).forEach((piece) => {
      const key = /^%\((\w+)\)s$/.exec(piece);
      if (!key) { if (piece) parts.push(document.createTextNode(piece)); return; }
      const v = values[key[1]];
      parts.push(v instanceof Node ? v : document.createTextNode(String(v)));
    });
    return parts;
  };
  window.pageDir = document.documentElement.dir || "ltr";
})();
