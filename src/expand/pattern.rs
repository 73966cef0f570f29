//! Shell pattern matching: the one matcher of the shell, for pathname expansion, `case`,
//! `[[ == ]]` and the `${...}` operators (`#`, `%`, `/`, `^`, `,`).
//!
//! A pattern is compiled from [`PatByte`]s (a byte and whether it was quoted: quoted bytes
//! only match themselves). Unquoted `*`, `?` and `[...]` are special, an unquoted backslash
//! quotes the next byte, a `[` without its `]` is literal. With `extglob`, `?(p|q)`,
//! `*(p|q)`, `+(p|q)`, `@(p|q)` and `!(p|q)` are too (nested, with the same syntax inside);
//! one whose `)` is missing is literal.
//!
//! Patterns without extended parts run as a set of positions in the pattern (no
//! backtracking). Extended ones run as sets of positions in the text: for each part, the set
//! of places where a match of the pattern so far can end, with the ends of each extended
//! part from each start memoized; `*(...)` and `+(...)` are closed with a work list, never
//! by recursion on the text. Recursion only follows the nesting of the pattern (capped at
//! [`MAX_NEST`]), and a match that takes more than [`MAX_STEPS`] steps is no match: no
//! pattern, however hostile, takes exponential time or unbounded stack.
#![deny(clippy::indexing_slicing)]

use std::collections::HashMap;
use std::rc::Rc;

use super::glob::PatByte;

/// Extended patterns nested deeper than this are literal text.
const MAX_NEST: usize = 32;

/// The work one match with extended patterns may do (positions computed); past it, the
/// pattern does not match.
const MAX_STEPS: u64 = 20_000_000;

/// How a pattern is read and matched.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Syntax {
    /// `shopt -s extglob`: `?(...)`, `*(...)`, `+(...)`, `@(...)`, `!(...)`.
    pub extglob: bool,
    /// ASCII case-insensitive (`nocasematch`).
    pub fold: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ExtOp {
    /// `?(...)`: zero or one.
    Opt,
    /// `*(...)`: zero or more.
    Star,
    /// `+(...)`: one or more.
    Plus,
    /// `@(...)`: exactly one.
    One,
    /// `!(...)`: anything but one.
    Not,
}

/// One element of a compiled pattern.
#[derive(Debug, Clone)]
enum Node {
    Byte(u8),
    Any,
    Star,
    /// `[...]`: the bytes it matches.
    Set(Box<[bool; 256]>),
    /// An extended part, by its index in [`Pattern::exts`].
    Ext(usize),
}

#[derive(Debug, Clone)]
struct Ext {
    op: ExtOp,
    alts: Vec<Vec<Node>>,
}

/// A compiled shell pattern.
#[derive(Debug, Clone)]
pub(crate) struct Pattern {
    nodes: Vec<Node>,
    /// The nodes reversed (for suffixes), when there is no extended part.
    rev: Vec<Node>,
    exts: Vec<Ext>,
    fold: bool,
}

impl Pattern {
    pub(crate) fn new(pat: &[PatByte], syntax: Syntax) -> Self {
        let mut exts = Vec::new();
        let nodes = compile(pat, syntax, 0, &mut exts);
        let rev = if exts.is_empty() {
            nodes.iter().rev().cloned().collect()
        } else {
            Vec::new()
        };
        Pattern {
            nodes,
            rev,
            exts,
            fold: syntax.fold,
        }
    }

    fn folded<'t>(&self, text: &'t [u8]) -> std::borrow::Cow<'t, [u8]> {
        if self.fold && text.iter().any(u8::is_ascii_uppercase) {
            std::borrow::Cow::Owned(text.to_ascii_lowercase())
        } else {
            std::borrow::Cow::Borrowed(text)
        }
    }

    /// Whether the whole of `text` matches.
    pub(crate) fn is_match(&self, text: &[u8]) -> bool {
        self.is_match_name(text, false)
    }

    /// Whether the whole of `text` matches; `period`: a leading `.` must be matched by a
    /// literal `.` (file names without `dotglob`: `*`, `?` and `[...]` never match it).
    pub(crate) fn is_match_name(&self, text: &[u8], period: bool) -> bool {
        let text = self.folded(text);
        if self.exts.is_empty() {
            if period
                && text.first() == Some(&b'.')
                && !matches!(self.nodes.first(), Some(Node::Byte(b'.')))
            {
                return false;
            }
            return nfa_run(&self.nodes, text.iter(), true) == Some(text.len());
        }
        let mut run = Run::new(self, &text, period);
        let ends = run.seq_ends(&self.nodes, 0);
        !run.over && ends.last() == Some(&text.len())
    }

    /// The end of the shortest (or longest) prefix of `text` that matches.
    pub(crate) fn prefix(&self, text: &[u8], longest: bool) -> Option<usize> {
        let text = self.folded(text);
        if self.exts.is_empty() {
            return nfa_run(&self.nodes, text.iter(), longest);
        }
        let mut run = Run::new(self, &text, false);
        let ends = run.seq_ends(&self.nodes, 0);
        if run.over {
            return None;
        }
        if longest {
            ends.last().copied()
        } else {
            ends.first().copied()
        }
    }

    /// The start of the shortest (or longest) suffix of `text` that matches.
    pub(crate) fn suffix(&self, text: &[u8], longest: bool) -> Option<usize> {
        let text = self.folded(text);
        if self.exts.is_empty() {
            return nfa_run(&self.rev, text.iter().rev(), longest).map(|k| text.len() - k);
        }
        let n = text.len();
        let mut run = Run::new(self, &text, false);
        let mut check = |i: usize| {
            let ends = run.seq_ends(&self.nodes, i);
            (!run.over && ends.last() == Some(&n)).then_some(i)
        };
        if longest {
            (0..=n).find_map(&mut check)
        } else {
            (0..=n).rev().find_map(&mut check)
        }
    }

    /// For each position of `text` (and its end), whether a match starts there.
    pub(crate) fn starts(&self, text: &[u8]) -> Vec<bool> {
        let text = self.folded(text);
        if self.exts.is_empty() {
            return nfa_starts(&self.rev, &text);
        }
        let mut run = Run::new(self, &text, false);
        (0..=text.len())
            .map(|i| {
                let ends = run.seq_ends(&self.nodes, i);
                !run.over && !ends.is_empty()
            })
            .collect()
    }
}

/// Compiles a pattern (or one alternative of an extended part, `depth` deep).
fn compile(pat: &[PatByte], syntax: Syntax, depth: usize, exts: &mut Vec<Ext>) -> Vec<Node> {
    let byte = |b: u8| {
        Node::Byte(if syntax.fold {
            b.to_ascii_lowercase()
        } else {
            b
        })
    };
    let mut nodes = Vec::with_capacity(pat.len());
    let mut i = 0usize;
    while let Some(&p) = pat.get(i) {
        i += 1;
        if p.quoted {
            nodes.push(byte(p.b));
            continue;
        }
        if syntax.extglob
            && depth < MAX_NEST
            && matches!(p.b, b'?' | b'*' | b'+' | b'@' | b'!')
            && pat.get(i).is_some_and(|q| !q.quoted && q.b == b'(')
            && let Some((alts, next)) = scan_ext(pat, i + 1)
        {
            let op = match p.b {
                b'?' => ExtOp::Opt,
                b'*' => ExtOp::Star,
                b'+' => ExtOp::Plus,
                b'@' => ExtOp::One,
                _ => ExtOp::Not,
            };
            let alts = alts
                .into_iter()
                .map(|(s, e)| compile(pat.get(s..e).unwrap_or_default(), syntax, depth + 1, exts))
                .collect();
            exts.push(Ext { op, alts });
            nodes.push(Node::Ext(exts.len() - 1));
            i = next;
            continue;
        }
        match p.b {
            b'*' => {
                if !matches!(nodes.last(), Some(Node::Star)) {
                    nodes.push(Node::Star);
                }
            }
            b'?' => nodes.push(Node::Any),
            b'\\' => match pat.get(i) {
                Some(next) => {
                    nodes.push(byte(next.b));
                    i += 1;
                }
                None => nodes.push(Node::Byte(b'\\')),
            },
            b'[' => match bracket(pat, i) {
                Some((mut set, next)) => {
                    if syntax.fold {
                        for c in b'a'..=b'z' {
                            let up = usize::from(c.to_ascii_uppercase());
                            let either = set.get(usize::from(c)).copied().unwrap_or(false)
                                || set.get(up).copied().unwrap_or(false);
                            if let Some(s) = set.get_mut(usize::from(c)) {
                                *s = either;
                            }
                        }
                    }
                    nodes.push(Node::Set(set));
                    i = next;
                }
                None => nodes.push(Node::Byte(b'[')),
            },
            b => nodes.push(byte(b)),
        }
    }
    nodes
}

/// Scans an extended part whose `(` is just before `pat[start]`: its alternatives (ranges
/// of `pat`) and the index after its `)`, or `None` when it is not closed.
fn scan_ext(pat: &[PatByte], start: usize) -> Option<(Vec<(usize, usize)>, usize)> {
    let mut alts = Vec::new();
    let mut depth = 0usize;
    let mut alt_start = start;
    let mut i = start;
    loop {
        let p = *pat.get(i)?;
        if p.quoted {
            i += 1;
            continue;
        }
        match p.b {
            b'\\' => i += 2,
            // A bracket expression may hold `|` and `)`; one never closed leaves the
            // extended part unclosed too (bash then takes it all literally).
            b'[' => i = bracket(pat, i + 1)?.1,
            b'(' => {
                depth += 1;
                i += 1;
            }
            b')' if depth > 0 => {
                depth -= 1;
                i += 1;
            }
            b')' => {
                alts.push((alt_start, i));
                return Some((alts, i + 1));
            }
            b'|' if depth == 0 => {
                alts.push((alt_start, i));
                i += 1;
                alt_start = i;
            }
            _ => i += 1,
        }
    }
}

// ---------------------------------------------------------------------------------------
// Patterns without extended parts: a set of positions in the pattern.

/// Adds the positions reachable without consuming a byte (past `*`).
fn nfa_close(toks: &[Node], set: &mut [bool]) {
    for (i, t) in toks.iter().enumerate() {
        if matches!(t, Node::Star)
            && set.get(i).copied().unwrap_or(false)
            && let Some(next) = set.get_mut(i + 1)
        {
            *next = true;
        }
    }
}

/// The positions after consuming `c`; `false` when none is left.
fn nfa_step(toks: &[Node], cur: &[bool], c: u8, next: &mut [bool]) -> bool {
    next.fill(false);
    let mut any = false;
    for (i, t) in toks.iter().enumerate() {
        if !cur.get(i).copied().unwrap_or(false) {
            continue;
        }
        let to = match t {
            Node::Star => i,
            Node::Any => i + 1,
            Node::Byte(b) if *b == c => i + 1,
            Node::Set(s) if s.get(usize::from(c)).copied().unwrap_or(false) => i + 1,
            _ => continue,
        };
        if let Some(x) = next.get_mut(to) {
            *x = true;
            any = true;
        }
    }
    nfa_close(toks, next);
    any
}

/// Runs `toks` over `bytes` from a fresh start: the number of bytes consumed at which the
/// whole pattern matched, the longest or the shortest.
fn nfa_run<'b>(toks: &[Node], bytes: impl Iterator<Item = &'b u8>, longest: bool) -> Option<usize> {
    let n = toks.len();
    let mut cur = vec![false; n + 1];
    let mut next = vec![false; n + 1];
    if let Some(first) = cur.first_mut() {
        *first = true;
    }
    nfa_close(toks, &mut cur);
    let accepts = |set: &[bool]| set.get(n).copied().unwrap_or(false);
    let mut best = accepts(&cur).then_some(0);
    if best.is_some() && !longest {
        return best;
    }
    for (k, &c) in bytes.enumerate() {
        if !nfa_step(toks, &cur, c, &mut next) {
            break;
        }
        std::mem::swap(&mut cur, &mut next);
        if accepts(&cur) {
            best = Some(k + 1);
            if !longest {
                break;
            }
        }
    }
    best
}

/// For each position of `text` (and its end), whether a match starts there: the reversed
/// pattern run backward, a fresh start injected at each position.
fn nfa_starts(rev: &[Node], text: &[u8]) -> Vec<bool> {
    let n = rev.len();
    let mut out = vec![false; text.len() + 1];
    let mut cur = vec![false; n + 1];
    let mut next = vec![false; n + 1];
    let inject = |set: &mut Vec<bool>| {
        if let Some(first) = set.first_mut() {
            *first = true;
        }
        nfa_close(rev, set);
    };
    inject(&mut cur);
    if let Some(o) = out.get_mut(text.len()) {
        *o = cur.get(n).copied().unwrap_or(false);
    }
    for j in (0..text.len()).rev() {
        let c = text.get(j).copied().unwrap_or(0);
        nfa_step(rev, &cur, c, &mut next);
        inject(&mut next);
        std::mem::swap(&mut cur, &mut next);
        if let Some(o) = out.get_mut(j) {
            *o = cur.get(n).copied().unwrap_or(false);
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// Patterns with extended parts: sets of positions in the text.

/// One match of a pattern with extended parts against one text.
struct Run<'p, 't> {
    pat: &'p Pattern,
    text: &'t [u8],
    /// A leading `.` of the text is only matched by a literal `.`.
    period: bool,
    /// The ends of each extended part from each start.
    memo: HashMap<(usize, usize), Rc<Vec<usize>>>,
    steps: u64,
    /// Over [`MAX_STEPS`]: everything answers "no match".
    over: bool,
}

impl<'p, 't> Run<'p, 't> {
    fn new(pat: &'p Pattern, text: &'t [u8], period: bool) -> Self {
        Run {
            pat,
            text,
            period,
            memo: HashMap::new(),
            steps: 0,
            over: false,
        }
    }

    fn tick(&mut self, n: usize) {
        self.steps += n as u64 + 1;
        if self.steps > MAX_STEPS {
            self.over = true;
        }
    }

    /// Whether `*`, `?` and `[...]` must not match at `p` (a leading `.`).
    fn dot_at(&self, p: usize) -> bool {
        self.period && p == 0 && self.text.first() == Some(&b'.')
    }

    /// Where a match of `nodes` starting at `start` can end, in increasing order.
    fn seq_ends(&mut self, nodes: &'p [Node], start: usize) -> Vec<usize> {
        let n = self.text.len();
        let mut cur = vec![start];
        for node in nodes {
            if cur.is_empty() || self.over {
                return Vec::new();
            }
            let mut next = Vec::new();
            match node {
                Node::Byte(c) => {
                    next.extend(
                        cur.iter()
                            .filter(|&&p| self.text.get(p) == Some(c))
                            .map(|p| p + 1),
                    );
                }
                Node::Any => {
                    next.extend(
                        cur.iter()
                            .filter(|&&p| p < n && !self.dot_at(p))
                            .map(|p| p + 1),
                    );
                }
                Node::Set(set) => {
                    next.extend(
                        cur.iter()
                            .filter(|&&p| {
                                !self.dot_at(p)
                                    && self
                                        .text
                                        .get(p)
                                        .is_some_and(|&c| set.get(usize::from(c)) == Some(&true))
                            })
                            .map(|p| p + 1),
                    );
                }
                Node::Star => {
                    if let Some(&from) = cur.iter().find(|&&p| !self.dot_at(p)) {
                        next.extend(from..=n);
                    }
                }
                Node::Ext(id) => {
                    for &p in &cur {
                        let ends = self.ext_ends(*id, p);
                        next.extend(ends.iter().copied());
                        if self.over {
                            return Vec::new();
                        }
                    }
                    next.sort_unstable();
                    next.dedup();
                }
            }
            self.tick(next.len());
            cur = next;
        }
        cur
    }

    /// Where a match of any of the alternatives starting at `p` can end, in order.
    fn alts_ends(&mut self, alts: &'p [Vec<Node>], p: usize) -> Vec<usize> {
        let mut out = Vec::new();
        for alt in alts {
            out.extend(self.seq_ends(alt, p));
            if self.over {
                return Vec::new();
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Where a match of the extended part `id` starting at `p` can end, in order.
    fn ext_ends(&mut self, id: usize, p: usize) -> Rc<Vec<usize>> {
        if let Some(v) = self.memo.get(&(id, p)) {
            return Rc::clone(v);
        }
        let pat = self.pat;
        let Some(ext) = pat.exts.get(id) else {
            return Rc::new(Vec::new());
        };
        let n = self.text.len();
        let ends = match ext.op {
            ExtOp::One => self.alts_ends(&ext.alts, p),
            ExtOp::Opt => {
                let mut v = self.alts_ends(&ext.alts, p);
                if v.first() != Some(&p) {
                    v.insert(0, p);
                }
                v
            }
            ExtOp::Star | ExtOp::Plus => {
                // One match, then more from each end reached (a work list, not recursion).
                let mut seen = vec![false; n + 1 - p.min(n)];
                let mut out = Vec::new();
                let mut todo = vec![p];
                while let Some(q) = todo.pop() {
                    for e in self.alts_ends(&ext.alts, q) {
                        if let Some(s) = seen.get_mut(e - p)
                            && !*s
                        {
                            *s = true;
                            out.push(e);
                            todo.push(e);
                        }
                    }
                    if self.over {
                        return Rc::new(Vec::new());
                    }
                }
                if ext.op == ExtOp::Star && !seen.first().copied().unwrap_or(false) {
                    out.push(p);
                }
                out.sort_unstable();
                out
            }
            ExtOp::Not => {
                let hit = self.alts_ends(&ext.alts, p);
                let mut hits = hit.iter().peekable();
                (p..=n)
                    .filter(|q| {
                        while hits.next_if(|&&h| h < *q).is_some() {}
                        hits.peek() != Some(&q)
                    })
                    .collect()
            }
        };
        self.tick(ends.len());
        let ends = Rc::new(ends);
        self.memo.insert((id, p), Rc::clone(&ends));
        ends
    }
}

/// Parses a bracket expression whose `[` is just before `pat[start]`: the set it matches and
/// the index after its `]`, or `None` when it is not closed (then `[` is literal).
pub(crate) fn bracket(pat: &[PatByte], start: usize) -> Option<(Box<[bool; 256]>, usize)> {
    let mut set = Box::new([false; 256]);
    let mut i = start;
    let unquoted = |i: usize, b: u8| pat.get(i).is_some_and(|p| !p.quoted && p.b == b);
    let negate = unquoted(i, b'!') || unquoted(i, b'^');
    if negate {
        i += 1;
    }
    let mut first = true;
    loop {
        let p = *pat.get(i)?;
        if !p.quoted && p.b == b']' && !first {
            i += 1;
            break;
        }
        first = false;
        // `[:class:]`, `[=c=]`, `[.c.]`.
        if !p.quoted && p.b == b'[' {
            let kind = pat.get(i + 1).filter(|q| !q.quoted).map(|q| q.b);
            if let Some(k @ (b':' | b'=' | b'.')) = kind {
                let body = pat.get(i + 2..).unwrap_or_default();
                let close = body
                    .windows(2)
                    .position(|w| matches!(w, [a, b] if a.b == k && b.b == b']'));
                if let Some(end) = close {
                    let name: Vec<u8> = body
                        .get(..end)
                        .unwrap_or_default()
                        .iter()
                        .map(|q| q.b)
                        .collect();
                    if k == b':' {
                        for c in 0..=255u8 {
                            if class_matches(&name, c)
                                && let Some(s) = set.get_mut(usize::from(c))
                            {
                                *s = true;
                            }
                        }
                    } else if let [c] = name.as_slice()
                        && let Some(s) = set.get_mut(usize::from(*c))
                    {
                        *s = true;
                    }
                    i += 2 + end + 2;
                    continue;
                }
            }
        }
        let (lo, next) = if !p.quoted && p.b == b'\\' {
            (pat.get(i + 1)?.b, i + 2)
        } else {
            (p.b, i + 1)
        };
        i = next;
        let dash = unquoted(i, b'-') && pat.get(i + 1).is_some_and(|q| q.quoted || q.b != b']');
        if dash {
            let q = *pat.get(i + 1)?;
            let (hi, next) = if !q.quoted && q.b == b'\\' {
                (pat.get(i + 2)?.b, i + 3)
            } else {
                (q.b, i + 2)
            };
            i = next;
            for c in lo..=hi {
                if let Some(s) = set.get_mut(usize::from(c)) {
                    *s = true;
                }
            }
        } else if let Some(s) = set.get_mut(usize::from(lo)) {
            *s = true;
        }
    }
    if negate {
        set.iter_mut().for_each(|s| *s = !*s);
    }
    Some((set, i))
}

/// Whether `c` is in the character class `name`: POSIX's, and bash's `word`.
fn class_matches(name: &[u8], c: u8) -> bool {
    if name == b"word" {
        return c.is_ascii_alphanumeric() || c == b'_';
    }
    trumansh_commands::class_matches(name, c).unwrap_or(false)
}

/// Whether a pattern component would match nothing but names without a leading `.` — bash's
/// test before matching a `.`-name without `dotglob`: a literal `.` must start it, or, for
/// an extended part at the start, one of its alternatives (or, for `?(...)` and `*(...)`,
/// which may match nothing, what follows); `!(...)` at the start never lets such a name in.
pub(crate) fn skips_dot_names(pat: &[PatByte], extglob: bool) -> bool {
    skips_dot(pat, extglob, 0)
}

fn skips_dot(pat: &[PatByte], extglob: bool, depth: usize) -> bool {
    let Some(first) = pat.first() else {
        return true;
    };
    if first.b == b'.' {
        return false;
    }
    if first.quoted || !extglob || depth >= MAX_NEST {
        return true;
    }
    if first.b == b'\\' {
        return pat.get(1).is_none_or(|p| p.b != b'.');
    }
    let op = first.b;
    if !matches!(op, b'?' | b'*' | b'+' | b'@' | b'!')
        || !pat.get(1).is_some_and(|p| !p.quoted && p.b == b'(')
    {
        return true;
    }
    let Some((alts, next)) = scan_ext(pat, 2) else {
        return true;
    };
    if op == b'!' {
        return true;
    }
    let rest = pat.get(next..).unwrap_or_default();
    if matches!(op, b'?' | b'*') && !rest.is_empty() && !skips_dot(rest, extglob, depth + 1) {
        return false;
    }
    alts.iter()
        .all(|&(s, e)| skips_dot(pat.get(s..e).unwrap_or_default(), extglob, depth + 1))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::indexing_slicing, clippy::unwrap_used)]
    use super::*;

    fn pat(s: &str) -> Vec<PatByte> {
        s.bytes().map(|b| PatByte { b, quoted: false }).collect()
    }

    fn ext(s: &str) -> Pattern {
        Pattern::new(
            &pat(s),
            Syntax {
                extglob: true,
                fold: false,
            },
        )
    }

    fn m(p: &str, t: &str) -> bool {
        ext(p).is_match(t.as_bytes())
    }

    // Each checked with bash 5.2: `shopt -s extglob; [[ TEXT == PATTERN ]]`.
    #[test]
    fn operators() {
        assert!(m("@(a|b)", "a"));
        assert!(!m("@(a|b)", "ab"));
        assert!(m("?(a|b)", ""));
        assert!(m("?(a|b)c", "bc"));
        assert!(!m("?(a|b)c", "abc"));
        assert!(m("*(a|b)", ""));
        assert!(m("*(a|b)", "abba"));
        assert!(!m("*(a|b)", "abca"));
        assert!(!m("+(a|b)", ""));
        assert!(m("+(a|b)", "abab"));
        assert!(m("+(ab|a)c", "aabac"));
        assert!(m("!(a|b)", "c"));
        assert!(m("!(a|b)", ""));
        assert!(m("!(a|b)", "ab"));
        assert!(!m("!(a|b)", "a"));
        assert!(m("!(*.txt)", "a.log"));
        assert!(!m("!(*.txt)", "a.txt"));
        assert!(m("x!(y)z", "xz"));
        assert!(m("x!(y)z", "xyyz"));
        assert!(!m("x!(y)z", "xyz"));
        assert!(m("*(x)", "xxx"));
        assert!(m("a*(b)c", "abbbc"));
    }

    #[test]
    fn nesting_and_syntax() {
        assert!(m("@(a|+(b|c))", "bcb"));
        assert!(m("+(a|@(b|c)d)", "abdcd"));
        assert!(!m("+(a|@(b|c)d)", "abd c"));
        assert!(m("@(*.c|[xy]?)", "yz"));
        assert!(m("@([)]|x)", ")"));
        assert!(!m("@(a|x|[)", "x"));
        assert!(m("@(a|x|[)", "@(a|x|[)"));
        // Not closed: literal text.
        assert!(m("@(a", "@(a"));
        assert!(!m("@(a", "a"));
        // Quoted `|` and `)` are plain bytes.
        let mut p = pat("@(a|b|c)");
        p[3].quoted = true;
        let q = Pattern::new(
            &p,
            Syntax {
                extglob: true,
                fold: false,
            },
        );
        assert!(q.is_match(b"a|b"));
        assert!(!q.is_match(b"a"));
        // Without extglob, the operators are plain text.
        let plain = Pattern::new(&pat("@(a|b)"), Syntax::default());
        assert!(plain.is_match(b"@(a|b)"));
        assert!(!plain.is_match(b"a"));
        let star = Pattern::new(&pat("*(a)"), Syntax::default());
        assert!(star.is_match(b"x(a)"));
    }

    #[test]
    fn prefixes_suffixes_starts() {
        let p = ext("@(a|ab)");
        assert_eq!(p.prefix(b"abc", false), Some(1));
        assert_eq!(p.prefix(b"abc", true), Some(2));
        let p = ext("+(c|b)");
        assert_eq!(p.suffix(b"abc", true), Some(1));
        assert_eq!(p.suffix(b"abc", false), Some(2));
        let p = ext("@(b|c)");
        assert_eq!(p.starts(b"abc"), vec![false, true, true, false]);
    }

    #[test]
    fn case_folding() {
        let p = Pattern::new(
            &pat("@(ab|[c-d])X"),
            Syntax {
                extglob: true,
                fold: true,
            },
        );
        assert!(p.is_match(b"ABx"));
        assert!(p.is_match(b"Dx"));
        let p = Pattern::new(
            &pat("a[B]*"),
            Syntax {
                extglob: false,
                fold: true,
            },
        );
        assert!(p.is_match(b"Abc"));
    }

    #[test]
    fn leading_dot_of_names() {
        let names = |p: &str, name: &str| {
            let dot = name.starts_with('.');
            (!dot || !skips_dot_names(&pat(p), true)) && ext(p).is_match_name(name.as_bytes(), true)
        };
        // As bash's pathname expansion without dotglob.
        assert!(names("@(.*)", ".hid"));
        assert!(names("?(x).hid", ".hid"));
        assert!(names("*(x).hid", ".hid"));
        assert!(!names("@(|x).hid", ".hid"));
        assert!(!names("!(x)", ".hid"));
        assert!(!names("@(*hid)", ".hid"));
        assert!(names("@(@(.)h)id", ".hid"));
        assert!(!names("*", ".hid"));
        assert!(!names("[.]hid", ".hid"));
        assert!(names("*(.h|i)d", ".hid"));
    }

    #[test]
    fn hostile_patterns_are_bounded() {
        let deep = format!("{}a{}", "+(".repeat(40), ")".repeat(40));
        let text = "a".repeat(3000);
        let _ = m(&deep, &text);
        let p = "*(a|aa|aaa)".repeat(20);
        let _ = m(&p, &format!("{}b", "a".repeat(2000)));
        let p = "!(!(!(a)))".repeat(10);
        let _ = m(&p, &"a".repeat(500));
        // Still right where it finishes.
        assert!(m("+(+(+(a)))", &"a".repeat(200)));
        assert!(!m("+(+(+(a)))", &format!("{}b", "a".repeat(200))));
    }
}
