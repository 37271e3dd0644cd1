"""Write catalogue.json: tricky inputs for equals, affix, is_json, json_schema,
levenshtein, pii_absent and tools_called, judged by digline 0.10.0.

Run from a scratch directory with the oracle's Python:
    oracle-digline --v 0.10 --exec python generate_catalogue.py > catalogue.json
Each case builds the 0.10.0 check class from `check` (the [[assertions]] keys,
`type` included) and calls it on `inputs` (`output`, `expected`, and the
target's `response` metadata). `verdict` is what it returned, or `raised` when
the check raised instead of returning. Random inputs come from a seeded
generator, so the file regenerates identically.
"""
import json
import random
import digline.core.assertions as a

CLASSES = {
    "equals": a.Equals, "affix": a.Affix, "is_json": a.IsJson, "json_schema": a.JsonSchema,
    "levenshtein": a.Levenshtein, "pii_absent": a.PiiAbsent, "tools_called": a.ToolsCalled,
}
rng = random.Random(20261130)
C = []


def case(label, check, output, expected=None, response=None):
    C.append({"label": label, "check": check,
              "inputs": {"output": output, "expected": expected, "response": response or {}}})


# equals: kinds, numbers across types, whitespace, normalisation, names.
for out, exp in [("a", "a"), ("a", "b"), ("a", None), (" a ", "a"), ("a\n", "a"), ("é", "e\u0301"),
                 ("Straße", "STRASSE"), ("", "x"), ({"a": 1}, {"a": 1.0}), ({"a": True}, {"a": 1}),
                 ({"a": [1, {"b": 2}]}, {"a": [1, {"b": 2.0}]}), ({"a": 1}, {"a": 1, "b": None}),
                 ({"a": 9007199254740993}, {"a": 9007199254740992.0}), ({"a": None}, {"a": 0}),
                 ({"a": [1, 2]}, {"a": [2, 1]}), ({"b": 1, "a": 2}, {"a": 2, "b": 1}), ("x", {"a": 1}),
                 ({"a": 1}, "x"), ({"a": 1}, None), ([], "x"), ([], None), (5, "x"), (None, "x")]:
    case(f"equals {out!r} vs {exp!r}", {"type": "equals"}, out, exp)
case("named equals without expected", {"type": "equals", "name": "exact"}, "a")
case("equals accepts text only, on structured", {"type": "equals", "accepts": ["text"]}, {"a": 1}, {"a": 1})

# affix
for check in [{"affix": "ab"}, {"affix": "ab", "at": "end"}, {"affix": "AB", "case_sensitive": False},
              {"affix": "straße", "case_sensitive": False}, {"affix": "😀", "at": "end"},
              {"affix": "e\u0301", "at": "end"}, {"affix": "it's \"q\"\n", "at": "end"},
              {"affix": "ab", "name": "opening"}, {"affix": "ﬁ", "case_sensitive": False}]:
    for out in ["abc", "cab", "ABC", "", "STRASSE x", "x 😀", "caf\u00e9", "cafe\u0301", "xit's \"q\"\n", "FILE", {"a": 1}, []]:
        case(f"affix {check} on {out!r}", dict(type="affix", **check), out)

# is_json: scalars, whitespace, BOM, every decoder message, then mutated documents.
texts = ['{"a":1}', '[1]', '1', '-0', '1.5e3', '"s"', 'null', 'true', ' {"a":1} ', '\t\n[]\r\n', '\ufeff{}',
         '', '   ', '{"a":1', '{"a":1}x', 'NaN', 'Infinity', '-Infinity', '1e400', '-', '1.', '1e', '1e+',
         '{"a":1,"a":2}', '\n\n  {\n "a": tru }', '[1,]', '{"a":1,}', "{'a':1}", '{"a" 1}', '{1:2}',
         '"\\ud800"', '"\\ud83d\\ude00"', '"\\u12"', '"\\uZZZZ"', '"\\q"', '"abc', '"a\\', '\x00', '01',
         '{"a":"\x01"}', 'é', '😀', '[1 2]', '{"a":1 "b":2}', '```json\n{}\n```', 'nul', 'True',
         '[' * 5 + ']' * 5, '{"é":"😀"}', '[\u00a0]', '"\x7f"', '[1,\n2,\n]', '"\\u0041\\u00e9"', '{"a":[}']
seeds = ['{"order": 4821, "eta": "Thursday", "items": [1, 2.5, true, null], "note": "é\\n😀"}',
         '[{"a": [1, {"b": "c"}]}, "x", -1e-05]']
for _ in range(260):
    t = list(rng.choice(seeds))
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(t) + 1)
        op = rng.random()
        if op < 0.4 and i < len(t):
            del t[i]
        elif op < 0.8:
            t.insert(i, rng.choice(list('{}[],:" \n\\tu0-e.1aé😀')))
        elif i < len(t):
            t[i] = rng.choice(list('{}[],:"\n'))
    texts.append("".join(t))
for top in ["any", "object", "array"]:
    for t in texts if top == "any" else texts[:60]:
        case(f"is_json {top} {t!r}", {"type": "is_json", "top_level": top}, t)
case("is_json default on structured", {"type": "is_json"}, {"a": 1})
for depth in [9995, 9996]:
    case(f"is_json arrays {depth} deep", {"type": "is_json"}, "[" * depth + "]" * depth)
    case(f"is_json objects {depth} deep", {"type": "is_json"}, '{"a":' * depth + "1" + "}" * depth)

# json_schema: violations by keyword, text and structured outputs.
ORDER = {"type": "object", "required": ["order", "eta"],
         "properties": {"order": {"type": "integer"}, "eta": {"type": "string"}}}
RICH = {"type": "object", "properties": {
    "items": {"type": "array", "items": {"type": "object", "properties": {"q": {"type": "number", "minimum": 1, "maximum": 3}}}},
    "tags": {"type": "array", "maxItems": 1},
    "uniq": {"type": "array", "uniqueItems": True},
    "few": {"type": "array", "minItems": 2},
    "one": {"type": "array", "minItems": 1},
    "none": {"type": "array", "maxItems": 0},
    "name": {"type": "string", "minLength": 3},
    "short": {"type": "string", "maxLength": 5},
    "code": {"type": "string", "pattern": "^[a-z]+$"},
    "kind": {"enum": ["a", "b", 3]},
    "c": {"const": "x"},
    "n": {"type": ["integer", "null"]},
    "ex": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 10},
    "m": {"type": "number", "multipleOf": 3},
    "mf": {"type": "number", "multipleOf": 0.5},
    "props": {"type": "object", "minProperties": 2, "maxProperties": 3},
    "nonempty": {"type": "object", "minProperties": 1},
    "any": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
    "one": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
    "not": {"not": {"type": "string"}},
    "never": False,
}, "additionalProperties": False}
for schema, out in [(ORDER, '{"order": 4821, "eta": "Thursday"}'), (ORDER, '{"order": "4821", "eta": 5}'),
                    (ORDER, '{}'), (ORDER, {"order": 1.0, "eta": "x"}), (ORDER, {"order": True, "eta": "x"}),
                    (ORDER, '[1]'), (ORDER, 'nope'), (ORDER, ''), (ORDER, '\ufeff{}'), (ORDER, '{"order": 1,'),
                    (ORDER, '"just text"'), (ORDER, '{"order": 1.5, "eta": null}'), (ORDER, []),
                    (ORDER, {"order": 12345678901234567890, "eta": "x"}), ({}, '"anything"'),
                    ({"type": "string", "format": "email"}, '"not an email"')]:
    case(f"json_schema {out!r}", {"type": "json_schema", "schema": schema}, out)
for out in [{"items": [{"q": 0}, {"q": 5}, {"q": "x"}]}, {"tags": [1, 2]}, {"uniq": [1, 1]}, {"uniq": [1, True]},
            {"few": [1]}, {"one": []}, {"none": [1]}, {"name": "AB"}, {"name": ""}, {"short": "abcdefg"},
            {"code": "AB"}, {"kind": "c"}, {"kind": 4}, {"c": "y"}, {"n": 1.5}, {"n": "x"}, {"ex": 0}, {"ex": 10},
            {"m": 4}, {"mf": 0.3}, {"props": {"a": 1}}, {"props": {"a": 1, "b": 2, "c": 3, "d": 4}}, {"nonempty": {}},
            {"any": 1.5}, {"one": []}, {"not": "s"}, {"never": 1}, {"zz": 1, "aa": 2}, {"zz": 1},
            {"items": [{"q": 0}], "name": "A"}, {"name": "é😀"}, {"short": "ééééé"}, {"items": [{"q": 2}] * 11 + [{"q": 9}]}]:
    case(f"json_schema rich {out!r}", {"type": "json_schema", "schema": RICH}, out)
    case(f"json_schema rich (text) {out!r}", {"type": "json_schema", "schema": RICH}, json.dumps(out, ensure_ascii=False))

# levenshtein: emoji, combining marks, ZWJ sequences, CJK, thresholds, random strings.
pairs = [("kitten", "sitting"), ("", ""), ("a", ""), ("", "abc"), ("abc", "abc"), ("😀a", "a"), ("e\u0301", "é"),
         ("é", "é"), ("Straße", "Strasse"), ("abcdefghij", "abcdefghik"), ("👨‍👩‍👧", "👨‍👩‍👦"), ("日本語", "日本"),
         ("ﬁle", "file"), ("a\u0301\u0302", "a\u0302\u0301"), ("Grüße 😀", "Grusse 😀"), ("🇮🇹", "🇫🇷")]
alphabet = "abé😀\u0301 ñ日"
for _ in range(80):
    pairs.append(("".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40))),
                  "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))))
for out, exp in pairs:
    case(f"levenshtein {out!r} vs {exp!r}", {"type": "levenshtein"}, out, exp)
case("levenshtein 0.75 kitten", {"type": "levenshtein", "threshold": 0.75}, "kitten", "sitting")
case("levenshtein 0.5 kitten", {"type": "levenshtein", "threshold": 0.5}, "kitten", "sitting")
case("levenshtein no expected", {"type": "levenshtein"}, "abc", None)
case("named levenshtein no expected", {"type": "levenshtein", "name": "close"}, "abc", None)
case("json_schema false property", {"type": "json_schema", "schema": {"type": "object", "properties": {
    "b": {"type": "object", "properties": {"c": False}}, "d": {"allOf": [False]}}}}, {"b": {"c": 1}, "d": 1})
case("levenshtein structured expected", {"type": "levenshtein"}, "abc", {"a": 1})
case("levenshtein structured output", {"type": "levenshtein"}, {"a": 1}, "x")


# pii_absent: real identifiers, near misses with bad checksums, spacing, other scripts.
def luhn_piva(body):
    total = 0
    for i, ch in enumerate(body):
        d = int(ch)
        if i % 2:
            d *= 2
            d = d - 9 if d > 9 else d
        total += d
    return body + str((10 - total % 10) % 10)


def iban(country, bban):
    n = int("".join(str(int(c, 36)) for c in bban + country + "00"))
    return f"{country}{98 - n % 97:02d}{bban}"


ODD = dict(zip("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ",
               [1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23]))
EVEN = {c: (int(c, 36) if c.isdigit() else ord(c) - 65) for c in "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"}


def cf(body):
    return body + chr(65 + sum((ODD if i % 2 == 0 else EVEN)[c] for i, c in enumerate(body)) % 26)


def spaced(s):
    return " ".join(s[i:i + 4] for i in range(0, len(s), 4))


samples = ["nothing here", "write to mario.rossi@example.it", "call +39 347 1234567", "tel. 06 12345678",
           "order 3471234567890", "IT60 X054 2811 1010 0000 0123 456", "IT60X0542811101000000123456",
           "IT61X0542811101000000123456", "GB82WEST12345698765432", "GB82 WEST 1234 5698 7654 32", "GB82WEST12345698765433",
           "RSSMRA85T10A562S", "rssmra85t10a562s", "RSSMRA85T10A562T", "RSSMRA85T10A5٦2S", "P.IVA 01114601006",
           "IT 0111 460 1006", "IT01114601006", "01114601007", "٠١١١٤٦٠١٠٠٦", "12345678903", "IT٦٠X0542811101000000123456",
           "a@b.co", "x@y", "first.last+tag@sub.example.co.uk, second@example.org", "_RSSMRA85T10A562S", "RSSMRA85T10A562S_",
           "éRSSMRA85T10A562S", "mail:mario@example.it.", "+39.347.1234567", "0039 347 1234567", "3471234567 3471234568"]
for _ in range(120):
    kind = rng.randrange(4)
    if kind == 0:
        body = "".join(rng.choice("0123456789") for _ in range(10))
        good = luhn_piva(body)
        token = good if rng.random() < 0.5 else good[:-1] + str((int(good[-1]) + rng.randint(1, 9)) % 10)
        token = rng.choice([token, "IT" + token, "IT " + token[:4] + " " + token[4:7] + " " + token[7:]])
    elif kind == 1:
        bban = rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") + "".join(rng.choice("0123456789") for _ in range(22))
        good = iban("IT", bban)
        token = good if rng.random() < 0.5 else good[:6] + str((int(good[6]) + 1) % 10) + good[7:]
        token = rng.choice([token, spaced(token)])
    elif kind == 2:
        letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
        body = "".join(rng.choice(letters) for _ in range(6)) + f"{rng.randrange(100):02d}" + rng.choice(letters) + \
            f"{rng.randrange(72):02d}" + rng.choice(letters) + f"{rng.randrange(1000):03d}"
        good = cf(body)
        token = good if rng.random() < 0.5 else good[:-1] + chr(65 + (ord(good[-1]) - 64) % 26)
        token = rng.choice([token, token.lower()])
    else:
        token = "".join(rng.choice("0123456789 +.-") for _ in range(rng.randint(8, 16)))
    samples.append(rng.choice(["", "see ", "Dati: ", "(", "x"]) + token + rng.choice(["", ".", " ok", ")", "x"]))
for text in samples:
    case(f"pii_absent {text!r}", {"type": "pii_absent"}, text)
case("pii_absent on structured", {"type": "pii_absent"}, {"email": "a@b.co"})

# tools_called
for response in [{}, {"tools": ["search_orders"]}, {"tools": ["a", "b"]}, {"tools": ["b", "a"]}, {"tools": []},
                 {"tools": [None, "search_orders"]}, {"tools": "search_orders"}, {"tools": [], "finish": "tool_use"},
                 {"tools": ["search_orders", "search_orders"]}, {"tools": ["it's"]}]:
    for expected in [["search_orders"], ["a", "b"], []]:
        case(f"tools_called {expected} on {response}", {"type": "tools_called", "expected": expected}, "x", None, response)
case("tools_called on structured", {"type": "tools_called", "expected": ["a"]}, {"a": 1}, None, {"tools": ["a"]})

for c in C:
    params = {k: v for k, v in c["check"].items() if k != "type"}
    if "accepts" in params:
        params["accepts"] = frozenset(params["accepts"])
    check = CLASSES[c["check"]["type"]](**params)
    inputs = c["inputs"]
    try:
        v = check(a.EvaluatorInputs(output=inputs["output"], expected=inputs["expected"],
                                    metadata={"case": {}, "response": inputs["response"]}))
        c["verdict"] = {"assertion": v.score.name, "status": v.status, "score": v.score.score,
                        "reason": v.reason, "metadata": dict(v.score.metadata),
                        "threshold": v.threshold, "tolerance": v.tolerance}
    except Exception as exc:  # the driver records this as "assertion raised <T>: <msg>"
        c["raised"] = f"{type(exc).__name__}: {exc}"
print("[\n" + ",\n".join(json.dumps(c, ensure_ascii=False, sort_keys=True) for c in C) + "\n]")
