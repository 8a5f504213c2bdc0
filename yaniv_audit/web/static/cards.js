// Card faces drawn as SVG: rank and suit in two corners, a large suit in the middle, a
// joker face, and a back for a card the seat shown cannot see. Every colour is a class
// (board.css): the Content-Security-Policy allows no style attribute.
"use strict";
(function () {
  const NS = "http://www.w3.org/2000/svg";
  const SUITS = { C: ["\u2663", "black", "clubs"], D: ["\u2666", "red", "diamonds"],
                  H: ["\u2665", "red", "hearts"], S: ["\u2660", "black", "spades"] };
  const RANKS = { A: "ace", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven",
                  8: "eight", 9: "nine", T: "ten", J: "jack", Q: "queen", K: "king" };
  // the words, marked for the catalogues (t() reads them at run time)
  const WORDS = {
    ace: () => t("ace"), two: () => t("two"), three: () => t("three"), four: () => t("four"),
    five: () => t("five"), six: () => t("six"), seven: () => t("seven"), eight: () => t("eight"),
    nine: () => t("nine"), ten: () => t("ten"), jack: () => t("jack"), queen: () => t("queen"),
    king: () => t("king"), clubs: () => t("clubs"), diamonds: () => t("diamonds"),
    hearts: () => t("hearts"), spades: () => t("spades"),
  };

  function svg(tag, attrs, text) {
    const node = document.createElementNS(NS, tag);
    Object.entries(attrs || {}).forEach(([k, v]) => node.setAttribute(k, v));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // "eight of hearts", "joker", "a hidden card", in the page's language
  function cardName(code) {
    if (code === "??") return t("a hidden card");
    if (code === "JK") return t("joker");
    const rank = RANKS[code.slice(0, -1)], suit = SUITS[code.slice(-1)];
    if (!rank || !suit) return code;
    return t("%(rank)s of %(suit)s", { rank: WORDS[rank](), suit: WORDS[suit[2]]() });
  }

  // a card's short text: 10♥, J♠, JK
  function cardText(code) {
    if (code === "??" || code === "JK") return code === "JK" ? "JK" : "?";
    const rank = code.slice(0, -1) === "T" ? "10" : code.slice(0, -1);
    return rank + (SUITS[code.slice(-1)] || ["?"])[0];
  }

  function cardFace(code) {
    const face = svg("svg", { viewBox: "0 0 60 84", class: "card", role: "img" });
    face.setAttribute("aria-label", cardName(code));
    face.dataset.card = code;
    const title = svg("title", {}, cardName(code));
    face.appendChild(title);
    if (code === "??") {
      face.classList.add("back");
      face.appendChild(svg("rect", { x: 1, y: 1, width: 58, height: 82, rx: 6, class: "edge" }));
      face.appendChild(svg("rect", { x: 6, y: 6, width: 48, height: 72, rx: 3, class: "weave" }));
      face.appendChild(svg("path", { d: "M6 6 L54 78 M54 6 L6 78 M30 6 L30 78 M6 42 L54 42", class: "weave" }));
      return face;
    }
    face.appendChild(svg("rect", { x: 1, y: 1, width: 58, height: 82, rx: 6, class: "edge" }));
    if (code === "JK") {
      face.classList.add("joker");
      face.appendChild(svg("text", { x: 7, y: 18, class: "corner joker-word" }, "JK"));
      face.appendChild(svg("text", { x: 30, y: 58, "text-anchor": "middle", class: "pip" }, "\u2605"));
      face.appendChild(svg("text", { x: 53, y: 78, "text-anchor": "end", class: "corner small joker-word" }, "JOKER"));
      return face;
    }
    const [symbol, colour] = SUITS[code.slice(-1)] || ["?", "black"];
    face.classList.add(colour);
    const rank = code.slice(0, -1) === "T" ? "10" : code.slice(0, -1);
    face.appendChild(svg("text", { x: 5, y: 22, class: "corner rank" }, rank));
    face.appendChild(svg("text", { x: 5, y: 40, class: "corner suit" }, symbol));
    face.appendChild(svg("text", { x: 30, y: 60, "text-anchor": "middle", class: "pip" }, symbol));
    const turned = svg("g", { transform: "rotate(180 30 42)" });
    turned.appendChild(svg("text", { x: 5, y: 22, class: "corner rank" }, rank));
    face.appendChild(turned);
    return face;
  }

  window.cards = { cardFace, cardName, cardText, SUITS };
})();
