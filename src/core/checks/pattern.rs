//! Python `re` patterns run in Rust.
//!
//! digline 0.10.0 judges `regex` with Python's `re.search(pattern, output)`
//! (unanchored, no flags). Here a pattern is first *translated* from
//! Python's syntax into the syntax of the `fancy_regex` crate (the `regex`
//! crate plus backtracking for lookaround, backreferences, atomic groups and
//! conditionals), then compiled. The translation is a small parser of
//! Python's grammar, so every construct is either given Python's meaning or
//! refused with a sentence; nothing is passed through on trust.
//!
//! # Supported, with Python's meaning
//!
//! | Python | runs as | why it is rewritten |
//! |---|---|---|
//! | `$` (outside a class) | `(?:$\|(?=\n\z))` | Python's `$` also matches just before one trailing newline |
//! | `\Z` | `\z` | Python's end of text |
//! | `\A`, `^`, `.`, `\b`, `\B` | themselves | same meaning |
//! | `\d`, `\D` | `[\p{Nd}]`, `[\P{Nd}]` | Unicode `Nd`, so `٣` is a digit (spelled out so the JSON Schema validator, which reads `\d` as ASCII, keeps it) |
//! | `\w`, `\W` | `[\p{L}\p{N}_]`, its negation | Python's word characters: letters, numbers and `_` |
//! | `\s`, `\S` | the 29 characters of Python's `str.isspace`, its negation | Python also counts U+001C–U+001F |
//! | `\n \t \r \f \v \a`, `\xhh`, `\uhhhh`, `\Uhhhhhhhh`, octal `\0`, `\012` | the character | spelled `\x{…}` for the Rust parser |
//! | `\1` … `\99`, `(?P=name)` | backreferences | |
//! | `(?P<name>…)`, `(?:…)`, `(?=…)`, `(?!…)`, `(?<=…)`, `(?<!…)`, `(?>…)` | themselves | |
//! | `(?(1)yes\|no)`, `(?(name)yes\|no)` | conditionals | the name is spelled `<name>` |
//! | `(?#…)` | dropped | a comment |
//! | leading `(?aimsux)`, scoped `(?aimsux-imsx:…)` | `ims` passed on | `u` is the default; `a` and `x` are handled here |
//! | `(?a)`, `(?a:…)` | `\w \d \s` as ASCII classes, `\b \B` as lookaround on `[A-Za-z0-9_]` | Python's ASCII flag |
//! | `(?x)`, `(?x:…)` | handled here | whitespace and `#` comments are dropped outside classes, as Python does (Rust would also drop them inside classes) |
//! | `{m}`, `{m,}`, `{,n}`, `{m,n}` and their lazy forms | `{m}` … `{0,n}` | Rust needs the lower bound |
//! | possessive `X*+`, `X++`, `X?+`, `X{m,n}+` | `(?>X*)` … | an atomic group, spelled out (the linear engine would read `a*+` as `(?:a*)+`) |
//! | a repeated lookaround `(?=X)*` | `(?:(?=X)\|)`, or `(?=X)` when the minimum is above 0 | Python tries a zero-width item once |
//! | `{` that starts no quantifier, lone `}` and `]` | literal | as in Python |
//! | `[…]` classes | rebuilt item by item | `[`, `&&`, `~~` are literal in Python but set syntax in Rust; `\b` in a class is backspace |
//!
//! # Refused (the error says which)
//!
//! The locale flag `(?L)`, named Unicode characters `\N{…}`, and everything
//! Python itself refuses (bad escapes such as `\q` or `\z`, `(?<name>…)`,
//! flags that are not at the start, unterminated classes and groups, octal
//! escapes above `\377`, nothing to repeat, a repeat of a repeat, a minimum
//! above the maximum, a look-behind of variable width — widths are counted
//! here as Python counts them —, references to groups that do not exist or
//! are still open, two groups of one name). Each refusal names the position
//! in the user's pattern; a message of the engine has its position mapped
//! back from the translated text. The parity with Python 3.13 and 3.11 is
//! measured by `tests/parity/regex/` (docs/checks.md).
//!
//! # Known differences that remain
//!
//! - `\b`/`\B` use the Rust engine's word characters, which also count
//!   combining marks and connector punctuation other than `_`, and not
//!   `No` numbers such as `²`. They decide differently only next to such
//!   characters.
//! - `\B` matches in an empty text, where Python's never does.
//! - With `(?a)` and `(?i)` together, case folding stays Unicode, where
//!   Python folds ASCII letters only.
//! - Unicode data follow the crates' Unicode version, not Python's.
//! - Matching can give up on pathological backtracking (the engine's
//!   backtrack limit); the check then reports an `error`, where Python would
//!   run on.

/// Python's `\s`: the code points for which `str.isspace()` is true (29 of
/// them), written as the items of a Rust character class.
const PY_SPACE_ITEMS: &str = r"\x{9}-\x{D}\x{1C}-\x{20}\x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}";

/// Python's `\w`: letters, numbers and `_`, as the items of a Rust character class.
const PY_WORD_ITEMS: &str = r"\p{L}\p{N}_";

/// How many backtracking steps one search may take before it gives up with
/// an error (the `fancy_regex` default).
const BACKTRACK_LIMIT: usize = 1_000_000;

/// Compile a pattern written for Python's `re.search`.
///
/// The result searches unanchored, like `re.search`; use `is_match` or
/// `find`. Matching itself can still fail at run time (backtrack limit),
/// which callers must report as an error, not a miss.
///
/// # Errors
/// A sentence saying why the pattern cannot run (Python syntax this port
/// refuses, or a pattern the engine rejects), without a leading capital or
/// trailing period, e.g. `named Unicode characters (\N{...}) are not
/// supported`. A position in it counts characters of `pattern`, from 0.
pub fn compile(pattern: &str) -> Result<fancy_regex::Regex, String> {
    let (translated, map) = translate_mapped(pattern, Mode::Search)?;
    fancy_regex::RegexBuilder::new(&translated)
        .backtrack_limit(BACKTRACK_LIMIT)
        .build()
        .map_err(|e| {
            format!(
                "the regex engine rejects it: {}",
                in_user_positions(&e.to_string(), &map)
            )
        })
}

/// Rewrite a Python `re` pattern into `fancy_regex` syntax with the same
/// meaning (see the module doc for what changes and what is refused).
///
/// # Errors
/// A sentence naming the construct that cannot be translated.
pub fn translate(pattern: &str) -> Result<String, String> {
    translate_mapped(pattern, Mode::Search).map(|(t, _)| t)
}

/// Rewrite a Python `re` pattern for the linear `regex` engine the JSON
/// Schema validator matches property names with: the same as
/// [`translate`], except that `$` consumes the one trailing newline it may
/// stand before (`(?:$|\n\z)`, the same yes or no for a whole-name match,
/// without a lookahead), `.` is spelled `[^\n]` (the validator would read
/// a bare `.` with ECMA-262's meaning) and `\d` as `\p{Nd}` (it would read
/// `\d` as ASCII). A pattern that still needs lookaround, a backreference,
/// an atomic group or a possessive quantifier is refused by that engine.
///
/// # Errors
/// As [`translate`].
pub fn translate_linear(pattern: &str) -> Result<String, String> {
    translate_mapped(pattern, Mode::Linear).map(|(t, _)| t)
}

/// Which engine the translation is for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// `fancy_regex`, searched by [`super::search`].
    Search,
    /// The `regex` crate behind the JSON Schema validator's property names.
    Linear,
}

fn translate_mapped(pattern: &str, mode: Mode) -> Result<(String, Vec<(usize, usize)>), String> {
    let mut t = Translator {
        chars: pattern.chars().collect(),
        pos: 0,
        out: String::with_capacity(pattern.len() + 16),
        mode,
        frames: vec![Frame::new(Kind::Top, 0, 0)],
        groups: 0,
        open: Vec::new(),
        names: Vec::new(),
        widths: Vec::new(),
        map: Vec::new(),
    };
    t.leading_flags()?;
    t.body()?;
    if t.frames.len() > 1 {
        let at = t.frames.last().map_or(0, |f| f.at);
        return Err(format!(
            "it has a ( that is never closed (missing ), at position {at})"
        ));
    }
    Ok((t.out, t.map))
}

/// Rewrite `position N` in an engine message (a byte offset into the
/// translated pattern) as the character position in the user's pattern.
fn in_user_positions(message: &str, map: &[(usize, usize)]) -> String {
    let Some((head, tail)) = message.split_once("position ") else {
        return message.to_string();
    };
    let digits: String = tail.chars().take_while(char::is_ascii_digit).collect();
    let Ok(at) = digits.parse::<usize>() else {
        return message.to_string();
    };
    let user = map
        .iter()
        .rev()
        .find(|(out, _)| *out <= at)
        .map_or(0, |(_, source)| *source);
    format!("{head}position {user}{}", &tail[digits.len()..])
}

/// Characters a sub-pattern matches: at least, at most (`usize::MAX`: no bound).
type Width = (usize, usize);

fn add(a: Width, b: Width) -> Width {
    (a.0.saturating_add(b.0), a.1.saturating_add(b.1))
}

fn either(a: Option<Width>, b: Width) -> Width {
    a.map_or(b, |a| (a.0.min(b.0), a.1.max(b.1)))
}

/// What the last piece of the current branch was, for the quantifier rules
/// of Python's parser.
#[derive(Clone, Copy)]
enum Last {
    /// Nothing yet (start of a branch): a quantifier has nothing to repeat.
    Nothing,
    /// `^`, `$`, `\A`, `\Z`, `\b`, `\B`: Python does not repeat them.
    Anchor,
    /// Something repeatable, written from byte `out` of the output.
    Item {
        out: usize,
        width: Width,
        before: Width,
        assertion: bool,
    },
    /// A quantified item: another quantifier is a "multiple repeat".
    Repeated,
}

/// What a group is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Top,
    Capture(usize),
    Plain,
    Lookahead,
    Lookbehind,
    Conditional,
}

/// One open group (or the whole pattern) and the widths of its branches.
struct Frame {
    kind: Kind,
    out: usize,
    at: usize,
    seq: Width,
    alts: Option<Width>,
    last: Last,
    branches: usize,
    /// Python's `x` flag: whitespace and `#` comments are dropped.
    verbose: bool,
    /// Python's `a` flag: `\w`, `\d`, `\s`, `\b` are ASCII.
    ascii: bool,
    /// Python's `s` flag: `.` matches a newline too.
    dotall: bool,
}

impl Frame {
    fn new(kind: Kind, out: usize, at: usize) -> Frame {
        Frame {
            kind,
            out,
            at,
            seq: (0, 0),
            alts: None,
            last: Last::Nothing,
            branches: 1,
            verbose: false,
            ascii: false,
            dotall: false,
        }
    }
}

/// A one-pass rewriter over the pattern's code points.
struct Translator {
    chars: Vec<char>,
    pos: usize,
    out: String,
    mode: Mode,
    /// The open groups, the whole pattern first.
    frames: Vec<Frame>,
    /// Capturing groups opened so far.
    groups: usize,
    /// Capturing groups not closed yet.
    open: Vec<usize>,
    /// Group names and their numbers.
    names: Vec<(String, usize)>,
    /// Widths of the closed capturing groups, by number.
    widths: Vec<(usize, Width)>,
    /// (byte in `out`, character in the pattern) where each piece starts.
    map: Vec<(usize, usize)>,
}

/// One element of a character class, already in Rust syntax.
enum ClassItem {
    /// A single character (can start or end a range).
    Char(char),
    /// A class escape (`\d`, Python `\w`…), already rendered.
    Set(String),
}

impl Translator {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn peek_at(&self, offset: usize) -> Option<char> {
        self.chars.get(self.pos + offset).copied()
    }

    fn starts_with(&self, s: &str) -> bool {
        let wanted: Vec<char> = s.chars().collect();
        self.chars.get(self.pos..self.pos + wanted.len()) == Some(&wanted[..])
    }

    fn frame(&mut self) -> &mut Frame {
        let last = self.frames.len() - 1;
        &mut self.frames[last]
    }

    /// A repeatable piece of `width` characters was written from byte `out`.
    fn item(&mut self, out: usize, width: Width, assertion: bool) {
        let frame = self.frame();
        let before = frame.seq;
        frame.seq = add(before, width);
        frame.last = Last::Item {
            out,
            width,
            before,
            assertion,
        };
    }

    fn anchor(&mut self) {
        self.frame().last = Last::Anchor;
    }

    /// `(?aiLmsux)` groups at the very start: Python's global flags.
    fn leading_flags(&mut self) -> Result<(), String> {
        while self.starts_with("(?") {
            let mut end = self.pos + 2;
            while self.chars.get(end).is_some_and(|c| "aiLmsux".contains(*c)) {
                end += 1;
            }
            if end == self.pos + 2 || self.chars.get(end) != Some(&')') {
                return Ok(());
            }
            let flags: String = self.chars[self.pos + 2..end].iter().collect();
            if flags.contains('a') && flags.contains('u') {
                return Err(format!(
                    "it has the conflicting flags a and u at position {}",
                    self.pos
                ));
            }
            self.pos = end + 1;
            let mut kept = String::new();
            for f in flags.chars() {
                match f {
                    'a' => self.frame().ascii = true,
                    'L' => return Err(locale_flag_refusal()),
                    'u' => {}
                    'x' => self.frame().verbose = true,
                    other => {
                        if other == 's' {
                            self.frame().dotall = true;
                        }
                        kept.push(other);
                    }
                }
            }
            if !kept.is_empty() {
                self.out.push_str("(?");
                self.out.push_str(&kept);
                self.out.push(')');
            }
        }
        Ok(())
    }

    fn body(&mut self) -> Result<(), String> {
        while let Some(c) = self.peek() {
            let verbose = self.frames.last().is_some_and(|f| f.verbose);
            if verbose && matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0B' | '\x0C') {
                self.pos += 1;
                continue;
            }
            if verbose && c == '#' {
                while let Some(c) = self.peek() {
                    self.pos += 1;
                    if c == '\n' {
                        break;
                    }
                }
                continue;
            }
            let out = self.out.len();
            let at = self.pos;
            self.map.push((out, at));
            match c {
                '\\' => {
                    self.pos += 1;
                    self.escape(out)?;
                }
                '[' => {
                    self.pos += 1;
                    self.class()?;
                    self.item(out, (1, 1), false);
                }
                '(' => self.group()?,
                ')' => self.close(at)?,
                '|' => {
                    self.pos += 1;
                    let frame = self.frame();
                    if frame.kind == Kind::Conditional && frame.branches == 2 {
                        return Err(format!(
                            "it has a conditional group with more than two branches at position {at}"
                        ));
                    }
                    frame.alts = Some(either(frame.alts, frame.seq));
                    frame.seq = (0, 0);
                    frame.last = Last::Nothing;
                    frame.branches += 1;
                    self.out.push('|');
                }
                '$' => {
                    self.pos += 1;
                    self.out.push_str(match self.mode {
                        Mode::Search => r"(?:$|(?=\n\z))",
                        Mode::Linear => r"(?:$|\n\z)",
                    });
                    self.anchor();
                }
                '^' => {
                    self.pos += 1;
                    self.out.push('^');
                    self.anchor();
                }
                '{' => match self.brace()? {
                    Some((low, high)) => self.quantifier(at, low, high)?,
                    None => {
                        self.pos += 1;
                        push_literal(&mut self.out, '{');
                        self.item(out, (1, 1), false);
                    }
                },
                '*' => self.quantifier(at, 0, usize::MAX)?,
                '+' => self.quantifier(at, 1, usize::MAX)?,
                '?' => self.quantifier(at, 0, 1)?,
                '.' => {
                    self.pos += 1;
                    let dotall = self.frames.last().is_some_and(|f| f.dotall);
                    self.out.push_str(match (self.mode, dotall) {
                        (Mode::Search, _) => ".",
                        (Mode::Linear, false) => r"[^\n]",
                        (Mode::Linear, true) => r"[\x{0}-\x{10FFFF}]",
                    });
                    self.item(out, (1, 1), false);
                }
                _ => {
                    self.pos += 1;
                    push_literal(&mut self.out, c);
                    self.item(out, (1, 1), false);
                }
            }
        }
        Ok(())
    }

    /// A quantifier at `at` (its text not consumed yet when it is `*+?`;
    /// already consumed for braces), repeating the last item `low` to
    /// `high` times, with Python's lazy `?` or possessive `+` after it.
    fn quantifier(&mut self, at: usize, low: usize, high: usize) -> Result<(), String> {
        if self.chars.get(self.pos).is_some_and(|c| "*+?".contains(*c)) && self.pos == at {
            self.pos += 1;
        }
        let (out, width, before, assertion) = match self.frame().last {
            Last::Nothing | Last::Anchor => {
                return Err(format!("it has nothing to repeat at position {at}"))
            }
            Last::Repeated => {
                return Err(format!(
                    "it repeats a repeat at position {at} (Python's \"multiple repeat\"; \
                     write (?:…) around the first)"
                ))
            }
            Last::Item {
                out,
                width,
                before,
                assertion,
            } => (out, width, before, assertion),
        };
        if low > high {
            return Err(format!(
                "it has a repeat whose minimum is above its maximum at position {at}"
            ));
        }
        let lazy = self.peek() == Some('?');
        let possessive = !lazy && self.peek() == Some('+');
        if lazy || possessive {
            self.pos += 1;
        }
        let mut q = match (low, high) {
            (0, usize::MAX) => "*".to_string(),
            (1, usize::MAX) => "+".to_string(),
            (0, 1) => "?".to_string(),
            (l, usize::MAX) => format!("{{{l},}}"),
            (l, h) if l == h => format!("{{{l}}}"),
            (l, h) => format!("{{{l},{h}}}"),
        };
        if lazy {
            q.push('?');
        }
        let atom = self.out[out..].to_string();
        if assertion || width == (0, 0) {
            // A zero-width item repeated (an assertion, an empty group, a
            // group of anchors): Python tries it once, and a minimum of 0
            // lets it fail.
            if low == 0 {
                self.out.truncate(out);
                let open = if possessive { "(?>" } else { "(?:" };
                if lazy {
                    self.out.push_str(&format!("{open}|{atom})"));
                } else {
                    self.out.push_str(&format!("{open}{atom}|)"));
                }
            }
        } else if possessive {
            self.out.insert_str(out, "(?>");
            for entry in self.map.iter_mut().filter(|(o, _)| *o > out) {
                entry.0 += 3;
            }
            self.out.push_str(&q);
            self.out.push(')');
        } else {
            self.out.push_str(&q);
        }
        let repeated = (
            width.0.saturating_mul(low),
            if high == 0 {
                0
            } else {
                width.1.saturating_mul(high)
            },
        );
        let frame = self.frame();
        frame.seq = add(before, repeated);
        frame.last = Last::Repeated;
        Ok(())
    }

    /// `)` at `at`: close the innermost group.
    fn close(&mut self, at: usize) -> Result<(), String> {
        self.pos += 1;
        if self.frames.len() == 1 {
            return Err(format!("it has an unbalanced ) at position {at}"));
        }
        let frame = self
            .frames
            .pop()
            .unwrap_or_else(|| Frame::new(Kind::Top, 0, 0));
        let mut total = either(frame.alts, frame.seq);
        self.out.push(')');
        match frame.kind {
            Kind::Lookahead => self.item(frame.out, (0, 0), true),
            Kind::Lookbehind => {
                if total.0 != total.1 {
                    return Err(format!(
                        "it has a look-behind that can match texts of different lengths at \
                         position {} (Python's look-behind is fixed-width)",
                        frame.at
                    ));
                }
                self.item(frame.out, (0, 0), true);
            }
            Kind::Conditional => {
                if frame.branches == 1 {
                    total = either(Some(total), (0, 0));
                }
                self.item(frame.out, total, false);
            }
            Kind::Capture(n) => {
                self.open.retain(|g| *g != n);
                self.widths.push((n, total));
                self.item(frame.out, total, false);
            }
            Kind::Plain | Kind::Top => self.item(frame.out, total, false),
        }
        Ok(())
    }

    /// Open a group of `kind` whose text `(…` was consumed, written as `text`.
    fn open_group(&mut self, kind: Kind, at: usize, text: &str) {
        let out = self.out.len();
        self.out.push_str(text);
        let mut frame = Frame::new(kind, out, at);
        if let Some(parent) = self.frames.last() {
            frame.verbose = parent.verbose;
            frame.ascii = parent.ascii;
            frame.dotall = parent.dotall;
        }
        self.frames.push(frame);
    }

    fn ascii(&self) -> bool {
        self.frames.last().is_some_and(|f| f.ascii)
    }

    /// A reference to group `n` at `at`: it must exist and be closed.
    fn group_reference(&mut self, n: usize, at: usize) -> Result<Width, String> {
        if n == 0 || n > self.groups {
            return Err(format!(
                "it refers to group {n}, which does not exist at position {at}"
            ));
        }
        if self.open.contains(&n) {
            return Err(format!(
                "it refers to group {n} inside that group, at position {at}"
            ));
        }
        Ok(self
            .widths
            .iter()
            .find(|(g, _)| *g == n)
            .map_or((0, usize::MAX), |(_, w)| *w))
    }

    fn named_group(&self, name: &str) -> Option<usize> {
        self.names.iter().find(|(n, _)| n == name).map(|(_, g)| *g)
    }

    /// `{…}` at the current position: `Some((low, high))` (consumed) if it
    /// reads as a quantifier, `None` (nothing consumed) for a literal brace.
    fn brace(&mut self) -> Result<Option<(usize, usize)>, String> {
        let start = self.pos;
        let mut i = start + 1;
        let digits = |i: &mut usize, chars: &[char]| {
            let from = *i;
            while chars.get(*i).is_some_and(char::is_ascii_digit) {
                *i += 1;
            }
            chars[from..*i].iter().collect::<String>()
        };
        let low = digits(&mut i, &self.chars);
        let mut high = None;
        if self.chars.get(i) == Some(&',') {
            i += 1;
            high = Some(digits(&mut i, &self.chars));
        }
        let closes = self.chars.get(i) == Some(&'}');
        let empty = low.is_empty() && high.is_none();
        if !closes || empty {
            return Ok(None);
        }
        self.pos = i + 1;
        // Python's bound: a count must be below 2³² − 1.
        let number = |text: &str, default: usize| -> Result<usize, String> {
            if text.is_empty() {
                return Ok(default);
            }
            text.parse::<u64>()
                .ok()
                .filter(|n| *n < u64::from(u32::MAX))
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| {
                    format!("it has a repeat count that is too large at position {start}")
                })
        };
        let low_n = number(&low, 0)?;
        let high_n = match high {
            None => low_n,
            Some(h) => number(&h, usize::MAX)?,
        };
        Ok(Some((low_n, high_n)))
    }

    /// After a `\` outside a class; `out` is where its text starts.
    fn escape(&mut self, out: usize) -> Result<(), String> {
        let at = self.pos - 1;
        let Some(c) = self.peek() else {
            return Err("it ends with a lone backslash".to_string());
        };
        self.pos += 1;
        match c {
            'b' | 'B' if self.ascii() => {
                let w = "[A-Za-z0-9_]";
                self.out.push_str(&if c == 'b' {
                    format!("(?:(?<={w})(?!{w})|(?<!{w})(?={w}))")
                } else {
                    format!("(?:(?<={w})(?={w})|(?<!{w})(?!{w}))")
                });
                self.anchor();
                return Ok(());
            }
            'A' | 'b' | 'B' => {
                self.out.push('\\');
                self.out.push(c);
                self.anchor();
                return Ok(());
            }
            'Z' => {
                self.out.push_str(r"\z");
                self.anchor();
                return Ok(());
            }
            'd' | 'D' | 'w' | 'W' | 's' | 'S' => {
                let (items, negated) = class_escape(c, self.ascii());
                let caret = if negated { "^" } else { "" };
                self.out.push_str(&format!("[{caret}{items}]"));
            }
            '1'..='9' => {
                // Three octal digits make an octal escape; otherwise one or
                // two digits are a group reference.
                let second = self.peek();
                let third = self.peek_at(1);
                if let (true, Some(s), Some(t)) = (c <= '7', second, third) {
                    if ('0'..='7').contains(&s) && ('0'..='7').contains(&t) {
                        self.pos += 2;
                        let ch = octal_char(&[c, s, t])?;
                        push_literal(&mut self.out, ch);
                        self.item(out, (1, 1), false);
                        return Ok(());
                    }
                }
                let mut number = String::from(c);
                if let Some(s) = second.filter(char::is_ascii_digit) {
                    self.pos += 1;
                    number.push(s);
                }
                let n = number.parse::<usize>().unwrap_or(usize::MAX);
                let width = self.group_reference(n, at)?;
                self.out.push('\\');
                self.out.push_str(&number);
                self.item(out, width, false);
                return Ok(());
            }
            _ => {
                let ch = self.char_escape(c, false)?;
                push_literal(&mut self.out, ch);
            }
        }
        self.item(out, (1, 1), false);
        Ok(())
    }

    /// The escapes that stand for one character, shared by both contexts.
    /// `c` is the character after the backslash (already consumed).
    fn char_escape(&mut self, c: char, in_class: bool) -> Result<char, String> {
        match c {
            'n' => Ok('\n'),
            't' => Ok('\t'),
            'r' => Ok('\r'),
            'f' => Ok('\x0C'),
            'v' => Ok('\x0B'),
            'a' => Ok('\x07'),
            'b' if in_class => Ok('\x08'),
            'x' => self.hex_escape('x', 2),
            'u' => self.hex_escape('u', 4),
            'U' => self.hex_escape('U', 8),
            'N' => Err(r"named Unicode characters (\N{...}) are not supported".to_string()),
            '0'..='7' => {
                let mut digits = vec![c];
                while let Some(d) = self
                    .peek()
                    .filter(|d| digits.len() < 3 && ('0'..='7').contains(d))
                {
                    digits.push(d);
                    self.pos += 1;
                }
                octal_char(&digits)
            }
            c if c.is_ascii_alphanumeric() => Err(format!("it has the bad escape \\{c}")),
            c => Ok(c),
        }
    }

    /// `\xhh`, `\uhhhh`, `\Uhhhhhhhh`: exactly `len` hex digits.
    fn hex_escape(&mut self, letter: char, len: usize) -> Result<char, String> {
        let digits: String = self
            .chars
            .iter()
            .skip(self.pos)
            .take(len)
            .take_while(|c| c.is_ascii_hexdigit())
            .collect();
        if digits.chars().count() != len {
            return Err(format!(
                "it has the incomplete escape \\{letter}{digits} ({len} hex digits expected)"
            ));
        }
        self.pos += len;
        u32::from_str_radix(&digits, 16)
            .ok()
            .and_then(char::from_u32)
            .ok_or_else(|| format!("the escape \\{letter}{digits} is not a valid character"))
    }

    /// `(`…: groups, lookaround, flags, comments, conditionals.
    fn group(&mut self) -> Result<(), String> {
        let at = self.pos;
        if !self.starts_with("(?") {
            self.pos += 1;
            self.groups += 1;
            self.open.push(self.groups);
            self.open_group(Kind::Capture(self.groups), at, "(");
            return Ok(());
        }
        let kinds = [
            ("(?:", Kind::Plain),
            ("(?>", Kind::Plain),
            ("(?=", Kind::Lookahead),
            ("(?!", Kind::Lookahead),
            ("(?<=", Kind::Lookbehind),
            ("(?<!", Kind::Lookbehind),
        ];
        for (text, kind) in kinds {
            if self.starts_with(text) {
                self.pos += text.chars().count();
                self.open_group(kind, at, text);
                return Ok(());
            }
        }
        if self.starts_with("(?P<") {
            self.pos += 4;
            let name = self.name_until('>', false)?;
            if let Some(earlier) = self.named_group(&name) {
                return Err(format!(
                    "it names two groups {name:?} (groups {earlier} and {}) at position {at}",
                    self.groups + 1
                ));
            }
            self.groups += 1;
            self.open.push(self.groups);
            self.names.push((name.clone(), self.groups));
            self.open_group(Kind::Capture(self.groups), at, &format!("(?P<{name}>"));
            return Ok(());
        }
        if self.starts_with("(?P=") {
            self.pos += 4;
            let out = self.out.len();
            let name = self.name_until(')', false)?;
            let Some(n) = self.named_group(&name) else {
                return Err(format!(
                    "it refers to the unknown group name {name:?} at position {at}"
                ));
            };
            let width = self.group_reference(n, at)?;
            self.out.push_str(&format!(r"\k<{name}>"));
            self.item(out, width, false);
            return Ok(());
        }
        if self.starts_with("(?#") {
            while let Some(c) = self.peek() {
                self.pos += 1;
                if c == ')' {
                    return Ok(());
                }
            }
            return Err(format!(
                "it has an unterminated comment (?# at position {at}"
            ));
        }
        if self.starts_with("(?(") {
            self.pos += 3;
            let reference = self.name_until(')', true)?;
            let text = if reference.chars().all(|c| c.is_ascii_digit()) {
                let n = reference.parse::<usize>().unwrap_or(usize::MAX);
                if n == 0 {
                    return Err(format!(
                        "it has the bad group number 0 at position {}",
                        at + 3
                    ));
                }
                if n > self.groups {
                    return Err(format!(
                        "it refers to group {reference}, which does not exist at position {}",
                        at + 3
                    ));
                }
                format!("(?({n})")
            } else {
                if self.named_group(&reference).is_none() {
                    return Err(format!(
                        "it refers to the unknown group name {reference:?} at position {}",
                        at + 3
                    ));
                }
                format!("(?(<{reference}>)")
            };
            self.open_group(Kind::Conditional, at, &text);
            return Ok(());
        }
        self.scoped_flags(at)
    }

    /// `(?aimsux-imsx:…)` at `at`; a bare `(?i)` here is not at the start.
    fn scoped_flags(&mut self, at: usize) -> Result<(), String> {
        let mut i = self.pos + 2;
        let mut on = String::new();
        let mut off = String::new();
        let mut negative = false;
        while let Some(&c) = self.chars.get(i) {
            match c {
                '-' if !negative => negative = true,
                'L' => return Err(locale_flag_refusal()),
                'a' | 'u' if negative => {
                    return Err(format!(
                        "it turns off the flag {c}, which Python cannot, at position {at}"
                    ))
                }
                'a' | 'i' | 'm' | 's' | 'u' | 'x' => {
                    let flags = if negative { &mut off } else { &mut on };
                    if flags.contains(c) || (c == 'a' && on.contains('u')) {
                        return Err(format!("it has conflicting flags at position {at}"));
                    }
                    if negative {
                        off.push(c);
                    } else {
                        on.push(c);
                    }
                }
                ':' => {
                    if negative && off.is_empty() {
                        return Err(format!(
                            "it has a (?-…: group with no flag at position {at}"
                        ));
                    }
                    if on.chars().any(|f| off.contains(f)) {
                        return Err(format!("it turns a flag both on and off at position {at}"));
                    }
                    if on.contains('a') && on.contains('u') {
                        return Err(format!("it has conflicting flags at position {at}"));
                    }
                    self.pos = i + 1;
                    // `a`, `u` and `x` are handled here; the engine gets `ims`.
                    let engine = |flags: &str| {
                        flags
                            .chars()
                            .filter(|f| "ims".contains(*f))
                            .collect::<String>()
                    };
                    let mut text = format!("(?{}", engine(&on));
                    if !engine(&off).is_empty() {
                        text.push('-');
                        text.push_str(&engine(&off));
                    }
                    text.push(':');
                    self.open_group(Kind::Plain, at, &text);
                    let frame = self.frame();
                    if on.contains('x') {
                        frame.verbose = true;
                    }
                    if off.contains('x') {
                        frame.verbose = false;
                    }
                    if on.contains('a') {
                        frame.ascii = true;
                    }
                    if on.contains('s') {
                        frame.dotall = true;
                    }
                    if off.contains('s') {
                        frame.dotall = false;
                    }
                    return Ok(());
                }
                ')' if !negative && i > self.pos + 2 => {
                    return Err(format!(
                        "it has global flags that are not at the start, at position {at}"
                    ))
                }
                _ => break,
            }
            i += 1;
        }
        let shown: String = self.chars[self.pos..(self.pos + 3).min(self.chars.len())]
            .iter()
            .collect();
        Err(format!(
            "it has the unknown group extension {shown} at position {at}"
        ))
    }

    /// A group name (or, with `allow_number`, a group number) up to `end` (consumed).
    fn name_until(&mut self, end: char, allow_number: bool) -> Result<String, String> {
        let mut name = String::new();
        while let Some(c) = self.peek() {
            self.pos += 1;
            if c == end {
                let identifier = name
                    .chars()
                    .next()
                    .is_some_and(|f| f.is_alphabetic() || f == '_')
                    && name.chars().all(|c| c.is_alphanumeric() || c == '_');
                let number = !name.is_empty() && name.chars().all(|c| c.is_ascii_digit());
                if !(identifier || (number && allow_number)) {
                    return Err(format!("it has the bad group name {name:?}"));
                }
                return Ok(name);
            }
            name.push(c);
        }
        Err("it has an unterminated group name".to_string())
    }

    /// After a `[`: a Python character class, rebuilt item by item.
    fn class(&mut self) -> Result<(), String> {
        let at = self.pos - 1;
        let mut rendered = String::from("[");
        let negated = self.peek() == Some('^');
        if negated {
            self.pos += 1;
            rendered.push('^');
        }
        // Negated escapes (`\S`, `\W`…) inside the class, for the linear
        // mode: the JSON Schema validator reads a nested `[` as a literal
        // (ECMA-262 has no nested classes), so they become alternatives.
        let mut outside: Vec<String> = Vec::new();
        let mut first = true;
        loop {
            let Some(c) = self.peek() else {
                return Err("it has an unterminated character set".to_string());
            };
            if c == ']' && !first {
                self.pos += 1;
                break;
            }
            first = false;
            let item = self.class_item()?;
            // A range: item `-` item, unless the `-` closes the class.
            if self.peek() == Some('-') && self.peek_at(1).is_some_and(|n| n != ']') {
                self.pos += 1;
                let end = self.class_item()?;
                match (item, end) {
                    (ClassItem::Char(a), ClassItem::Char(b)) if a <= b => {
                        push_class_char(&mut rendered, a);
                        rendered.push('-');
                        push_class_char(&mut rendered, b);
                    }
                    (ClassItem::Char(a), ClassItem::Char(b)) => {
                        return Err(format!(
                            "it has the bad character range {a}-{b} (the start is after the end)"
                        ));
                    }
                    _ => {
                        return Err(
                            "it has a character range that starts or ends with a class like \\d"
                                .to_string(),
                        )
                    }
                }
                continue;
            }
            match item {
                ClassItem::Char(ch) => push_class_char(&mut rendered, ch),
                ClassItem::Set(s) if self.mode == Mode::Linear && s.starts_with("[^") => {
                    if negated {
                        return Err(format!(
                            "it has a negated set with a negated class escape in it at position \
                             {at}, which property names cannot be matched with here"
                        ));
                    }
                    outside.push(s);
                }
                ClassItem::Set(s) => rendered.push_str(&s),
            }
        }
        rendered.push(']');
        if outside.is_empty() {
            self.out.push_str(&rendered);
        } else {
            if rendered != "[]" {
                outside.insert(0, rendered);
            }
            self.out.push_str(&format!("(?:{})", outside.join("|")));
        }
        Ok(())
    }

    fn class_item(&mut self) -> Result<ClassItem, String> {
        let Some(c) = self.peek() else {
            return Err("it has an unterminated character set".to_string());
        };
        self.pos += 1;
        if c != '\\' {
            return Ok(ClassItem::Char(c));
        }
        let Some(e) = self.peek() else {
            return Err("it ends with a lone backslash".to_string());
        };
        self.pos += 1;
        Ok(match e {
            'd' | 'D' | 'w' | 'W' | 's' | 'S' => {
                let (items, negated) = class_escape(e, self.ascii());
                ClassItem::Set(if negated {
                    format!("[^{items}]")
                } else {
                    items.to_string()
                })
            }
            _ => ClassItem::Char(self.char_escape(e, true)?),
        })
    }
}

/// The items of Python's class escape `\<letter>` (`d D w W s S`), with
/// or without the ASCII flag, and whether it is negated.
fn class_escape(letter: char, ascii: bool) -> (&'static str, bool) {
    let items = match (letter.to_ascii_lowercase(), ascii) {
        ('d', false) => r"\p{Nd}",
        ('d', true) => "0-9",
        ('w', false) => PY_WORD_ITEMS,
        ('w', true) => "A-Za-z0-9_",
        ('s', false) => PY_SPACE_ITEMS,
        _ => r"\x{9}-\x{D}\x{20}",
    };
    (items, letter.is_ascii_uppercase())
}

fn locale_flag_refusal() -> String {
    "the locale flag (?L) is not supported".to_string()
}

/// The character of an octal escape (at most `\377`, as in Python).
fn octal_char(digits: &[char]) -> Result<char, String> {
    let text: String = digits.iter().collect();
    let value = u32::from_str_radix(&text, 8).unwrap_or(u32::MAX);
    if value > 0o377 {
        return Err(format!(
            "it has the octal escape \\{text}, above the largest (\\377)"
        ));
    }
    char::from_u32(value).ok_or_else(|| format!("the escape \\{text} is not a valid character"))
}

/// Append `c` as a literal outside a class: alphanumerics and non-ASCII as
/// themselves, ASCII punctuation, spaces and controls as `\x{…}`.
fn push_literal(out: &mut String, c: char) {
    if c.is_ascii_alphanumeric() || c == '_' || (!c.is_ascii() && !c.is_whitespace()) {
        out.push(c);
    } else {
        out.push_str(&format!("\\x{{{:X}}}", u32::from(c)));
    }
}

/// Append `c` as a literal inside a class (same spelling as outside).
fn push_class_char(out: &mut String, c: char) {
    push_literal(out, c);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (pattern, text, whether Python's `re.search` finds a match), each
    /// checked against digline 0.10.0's Python (3.13).
    const SEARCHES: &[(&str, &str, bool)] = &[
        // `$` also matches before one trailing newline, not two.
        ("end$", "the end\n", true),
        ("end$", "the end\n\n", false),
        ("end$", "the end", true),
        ("end$", "end of it", false),
        ("(?m)^b$", "a\nb\nc", true),
        // `\Z` is the very end.
        ("end\\Z", "the end\n", false),
        ("end\\Z", "the end", true),
        // `\d` is Unicode: Arabic-Indic digits count.
        ("\\d{3}", "٣٤٥", true),
        ("\\d", "abc", false),
        // `\w` is Unicode letters, numbers and `_`.
        ("^\\w+$", "café", true),
        ("^\\w$", "²", true),
        ("^\\w$", "\u{301}", false),
        ("^\\w$", "-", false),
        // `\s` includes U+001C..U+001F.
        ("a\\sb", "a\u{1f}b", true),
        ("a\\Sb", "a\u{1f}b", false),
        ("[\\s]", "\u{1c}", true),
        // Backreferences, named and numbered.
        ("(?P<x>ab)(?P=x)", "abab", true),
        ("(?P<x>ab)(?P=x)", "abba", false),
        ("(a)\\1", "aa", true),
        // Lookaround.
        ("foo(?=bar)", "foobar", true),
        ("foo(?=bar)", "foobaz", false),
        ("(?<!x)foo", "xfoo", false),
        ("(?<!x)foo", "yfoo", true),
        // Conditionals.
        ("(?P<q>\")?a(?(q)\"|!)", "a!", true),
        ("^(?P<q>\")?a(?(q)\"|!)", "\"a!", false),
        ("(<)?b(?(1)>|c)", "<b>", true),
        // Braces.
        ("a{}", "a{}", true),
        ("a{,2}b", "aab", true),
        ("a{,}", "", true),
        ("x{y}", "x{y}", true),
        ("}", "}", true),
        ("]", "]", true),
        // Classes with Rust set syntax that Python reads literally.
        ("[[]", "[", true),
        ("[a&&b]", "&", true),
        ("[]a]", "]", true),
        ("[^]]", "]", false),
        ("[\\b]", "\u{8}", true),
        ("[a-]", "-", true),
        // Escapes.
        ("\\x41\\u00e9\\U0001F600", "Aé😀", true),
        ("\\101", "A", true),
        ("\\0", "\u{0}", true),
        ("\\.", "a", false),
        // Flags, comments, verbose.
        ("(?i)straße", "STRAßE", true),
        ("(?i:AB)c", "abc", true),
        ("(?i:AB)c", "abC", false),
        ("a(?#note)b", "ab", true),
        ("(?x) a b # comment [\n c", "abc", true),
        ("(?x)[ ]", " ", true),
        ("(?x:a b) c", "ab c", true),
        ("(?x:a b) c", "abc", false),
        // The ASCII flag, global or scoped.
        ("(?a)^\\w$", "é", false),
        ("(?a)^\\d$", "٣", false),
        ("(?a:\\w)\\w", "aé", true),
        ("(?a)\\bé", "xé", true),
        ("\\bé", "xé", false),
        // Atomic groups and possessive quantifiers.
        ("a(?>bc|b)c", "abc", false),
        ("x{2}+", "xxx", true),
        // Possessive quantifiers never give back (Python 3.11 and later).
        ("a*+a", "aaa", false),
        ("a++a", "aaa", false),
        ("a{1,3}+a", "aaaa", true),
        ("[ab]*+b", "ab", false),
        // A repeated lookaround is tried once; a minimum of 0 lets it fail.
        ("b(?=a)*c", "bc", true),
        ("b(?=a)+c", "bc", false),
    ];

    #[test]
    fn searches_as_python_does() {
        for (pattern, text, expected) in SEARCHES {
            let regex =
                compile(pattern).unwrap_or_else(|e| panic!("{pattern:?} should compile: {e}"));
            let found = regex.is_match(text).ok();
            assert_eq!(found, Some(*expected), "{pattern:?} on {text:?}");
        }
    }

    #[test]
    fn refuses_what_cannot_run() {
        let refused: &[(&str, &str)] = &[
            ("(?au)x", "conflicting flags a and u"),
            ("(?L)x", "locale"),
            ("\\N{DIGIT ONE}", "named Unicode"),
            ("\\q", "bad escape \\q"),
            ("\\z", "bad escape \\z"),
            ("[\\A]", "bad escape \\A"),
            ("x(?i)", "not at the start"),
            ("(?<n>a)", "unknown group extension"),
            ("[abc", "unterminated character set"),
            ("abc\\", "lone backslash"),
            ("\\xZZ", "incomplete escape"),
            ("\\777", "above the largest"),
            ("[z-a]", "bad character range"),
            ("[\\d-z]", "character range"),
            (
                "(unclosed",
                "a ( that is never closed (missing ), at position 0)",
            ),
            ("[ab]**", "repeats a repeat at position 5"),
            ("a|*", "nothing to repeat at position 2"),
            ("a{3,2}", "minimum is above its maximum at position 1"),
            (
                "(?<=a|bc)x",
                "look-behind that can match texts of different lengths at position 0",
            ),
            (r"(a)\2", "group 2, which does not exist at position 3"),
            (r"(a\1)", "inside that group, at position 2"),
            ("(?P<n>a)(?P<n>b)", "two groups \"n\""),
            ("(?(1)a|b)", "group 1, which does not exist"),
            ("(a)(?(1)a|b|c)", "more than two branches at position 11"),
            ("a)", "unbalanced ) at position 1"),
            ("*a", "nothing to repeat at position 0"),
            ("(?P<1a>x)", "bad group name"),
        ];
        for (pattern, needle) in refused {
            match compile(pattern) {
                Ok(_) => panic!("{pattern:?} should be refused"),
                Err(e) => assert!(e.contains(needle), "{pattern:?}: {e}"),
            }
        }
    }

    /// Random patterns over Python's metacharacters: translation never
    /// panics, in either mode, and a refusal's position is in the pattern.
    #[test]
    fn random_patterns_are_translated_or_refused_in_place() {
        let alphabet: Vec<char> = r"a()[]{}*+?|\^$-,0123:=!<>P#ixsdwbBAZ ".chars().collect();
        let mut state: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            usize::try_from(state % n as u64).unwrap_or(0)
        };
        for _ in 0..3_000 {
            let len = next(12);
            let pattern: String = (0..len).map(|_| alphabet[next(alphabet.len())]).collect();
            let _ = translate_linear(&pattern);
            if let Err(why) = compile(&pattern) {
                if let Some(at) = why.split("position ").nth(1) {
                    let n: usize = at
                        .chars()
                        .take_while(char::is_ascii_digit)
                        .collect::<String>()
                        .parse()
                        .unwrap_or(usize::MAX);
                    assert!(n <= pattern.chars().count(), "{pattern:?}: {why}");
                }
            }
        }
    }

    #[test]
    fn translation_spells_the_differences() {
        let cases: &[(&str, &str)] = &[
            ("a$", r"a(?:$|(?=\n\z))"),
            (r"a\Z", r"a\z"),
            (r"\d", r"[\p{Nd}]"),
            ("a*+b", "(?>a*)b"),
            ("(?=a)*b", "(?:(?=a)|)b"),
            ("a{,3}", "a{0,3}"),
            ("(?u)x", "x"),
            ("(?P<n>a)(?P=n)", r"(?P<n>a)\k<n>"),
        ];
        for (python, rust) in cases {
            assert_eq!(translate(python).as_deref(), Ok(*rust), "{python:?}");
        }
    }
}
