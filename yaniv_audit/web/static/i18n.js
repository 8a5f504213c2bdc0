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
  // a sentence the server said (web/said.py) as nodes: a string is text, a number a
  // player's seat (name(seat) draws it), {card} a card (card(code) draws it)
  window.saidNodes = function (parts, name, card) {
    return (parts || []).map((part) => {
      if (typeof part === "number") return name(part);
      if (part && typeof part === "object") return card(part.card);
      return document.createTextNode(String(part));
    });
  };
  window.pageDir = document.documentElement.dir || "ltr";
})();
