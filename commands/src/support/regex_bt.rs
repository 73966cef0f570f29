//! A bounded backtracking matcher for GNU regular expressions, over the parsed form
//! (`regex_syntax`'s HIR of the translated pattern). It does what an automaton cannot:
//! back-references (`\1`..`\9`), and group spans as GNU reports them for a match whose
//! bounds are already known (greedy, first path in priority order that ends where the
//! leftmost-longest match ends).
//!
//! Work is bounded: a search without back-references remembers which (instruction,
//! position) pairs already failed, so it is polynomial; a search with back-references
//! cannot, and gives up after [`STEP_BUDGET`] steps, answering "no match" (documented in
//! docs/ARCHITECTURE.md).

use regex_syntax::hir::{Class, Hir, HirKind, Look};

/// How many steps one search with back-references may take before it answers "no match".
pub const STEP_BUDGET: u64 = 20_000_000;
/// The largest program compiled (counted repetitions are copied out).
const MAX_INSTS: usize = 200_000;
/// The largest memo (bits) a constrained search allocates; past it the caller falls back.
const MAX_MEMO_BITS: usize = 1 << 25;

#[derive(Debug, Clone)]
enum Inst {
    Lit(Box<[u8]>),
    Class(Box<[u64; 4]>),
    /// Try the first, then the second.
    Split(usize, usize),
    Jmp(usize),
    Save(usize),
    Look(Look),
    /// Back-reference to group N (1-based).
    Backref(usize),
    /// Remembers the position at a loop iteration's start.
    Mark(usize),
    /// Fails when the iteration consumed nothing (an empty loop would never end).
    Progress(usize),
    Match,
}

/// A compiled program.
#[derive(Debug, Clone)]
pub struct Prog {
    insts: Vec<Inst>,
    /// Number of groups (not counting the whole match).
    pub groups: usize,
    marks: usize,
    pub has_backrefs: bool,
    icase: bool,
}

struct Compiler {
    insts: Vec<Inst>,
    marks: usize,
    backrefs: bool,
    /// `regex_syntax` capture index → GNU group number (0: a back-reference marker).
    group_of: Vec<usize>,
    /// `regex_syntax` capture index → back-reference target for markers.
    backref_of: Vec<usize>,
}

fn class_of(c: &Class) -> [u64; 4] {
    let mut set = [0u64; 4];
    let mut add = |lo: u32, hi: u32| {
        for b in lo..=hi.min(255) {
            let b = b as usize;
            if let Some(w) = set.get_mut(b / 64) {
                *w |= 1 << (b % 64);
            }
        }
    };
    match c {
        Class::Bytes(cb) => {
            for r in cb.iter() {
                add(u32::from(r.start()), u32::from(r.end()));
            }
        }
        Class::Unicode(cu) => {
            for r in cu.iter() {
                add(u32::from(r.start()), u32::from(r.end()));
            }
        }
    }
    set
}

impl Compiler {
    fn push(&mut self, i: Inst) -> Result<usize, String> {
        if self.insts.len() >= MAX_INSTS {
            return Err("Regular expression too big".into());
        }
        self.insts.push(i);
        Ok(self.insts.len() - 1)
    }

    fn patch(&mut self, at: usize, i: Inst) {
        if let Some(slot) = self.insts.get_mut(at) {
            *slot = i;
        }
    }

    fn hir(&mut self, h: &Hir) -> Result<(), String> {
        match h.kind() {
            HirKind::Empty => {}
            HirKind::Literal(l) => {
                self.push(Inst::Lit(l.0.clone()))?;
            }
            HirKind::Class(c) => {
                self.push(Inst::Class(Box::new(class_of(c))))?;
            }
            HirKind::Look(l) => {
                self.push(Inst::Look(*l))?;
            }
            HirKind::Capture(c) => {
                let idx = c.index as usize;
                let target = self.backref_of.get(idx).copied().unwrap_or(0);
                if target > 0 {
                    self.backrefs = true;
                    self.push(Inst::Backref(target))?;
                } else {
                    let g = self.group_of.get(idx).copied().unwrap_or(0);
                    self.push(Inst::Save(2 * g))?;
                    self.hir(&c.sub)?;
                    self.push(Inst::Save(2 * g + 1))?;
                }
            }
            HirKind::Concat(v) => {
                for s in v {
                    self.hir(s)?;
                }
            }
            HirKind::Alternation(v) => {
                let mut jumps = Vec::new();
                let n = v.len();
                for (k, s) in v.iter().enumerate() {
                    if k + 1 < n {
                        let split = self.push(Inst::Match)?;
                        self.hir(s)?;
                        jumps.push(self.push(Inst::Match)?);
                        let next = self.insts.len();
                        self.patch(split, Inst::Split(split + 1, next));
                    } else {
                        self.hir(s)?;
                    }
                }
                let end = self.insts.len();
                for j in jumps {
                    self.patch(j, Inst::Jmp(end));
                }
            }
            HirKind::Repetition(r) => {
                for _ in 0..r.min {
                    self.hir(&r.sub)?;
                }
                match r.max {
                    None => {
                        let m = self.marks;
                        self.marks += 1;
                        let split = self.push(Inst::Match)?;
                        self.push(Inst::Mark(m))?;
                        self.hir(&r.sub)?;
                        self.push(Inst::Progress(m))?;
                        self.push(Inst::Jmp(split))?;
                        let end = self.insts.len();
                        self.patch(
                            split,
                            if r.greedy {
                                Inst::Split(split + 1, end)
                            } else {
                                Inst::Split(end, split + 1)
                            },
                        );
                    }
                    Some(max) => {
                        let mut splits = Vec::new();
                        for _ in r.min..max {
                            splits.push(self.push(Inst::Match)?);
                            self.hir(&r.sub)?;
                        }
                        let end = self.insts.len();
                        for s in splits {
                            self.patch(
                                s,
                                if r.greedy {
                                    Inst::Split(s + 1, end)
                                } else {
                                    Inst::Split(end, s + 1)
                                },
                            );
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// Walks the HIR's captures in order: GNU group numbers for real groups, and the target of
/// each back-reference marker (a capture named `brK_N`).
fn number_groups(h: &Hir, group_of: &mut Vec<usize>, backref_of: &mut Vec<usize>, n: &mut usize) {
    match h.kind() {
        HirKind::Capture(c) => {
            let idx = c.index as usize;
            if group_of.len() <= idx {
                group_of.resize(idx + 1, 0);
                backref_of.resize(idx + 1, 0);
            }
            let target = c
                .name
                .as_deref()
                .and_then(|name| name.strip_prefix("br"))
                .and_then(|rest| rest.split('_').nth(1))
                .and_then(|d| d.parse::<usize>().ok());
            if let Some(t) = target {
                if let Some(slot) = backref_of.get_mut(idx) {
                    *slot = t;
                }
            } else {
                *n += 1;
                if let Some(slot) = group_of.get_mut(idx) {
                    *slot = *n;
                }
                number_groups(&c.sub, group_of, backref_of, n);
            }
        }
        HirKind::Concat(v) | HirKind::Alternation(v) => {
            for s in v {
                number_groups(s, group_of, backref_of, n);
            }
        }
        HirKind::Repetition(r) => number_groups(&r.sub, group_of, backref_of, n),
        _ => {}
    }
}

impl Prog {
    /// Compiles a parsed pattern.
    pub fn new(h: &Hir, icase: bool) -> Result<Prog, String> {
        let mut group_of = Vec::new();
        let mut backref_of = Vec::new();
        let mut n = 0;
        number_groups(h, &mut group_of, &mut backref_of, &mut n);
        let mut c = Compiler {
            insts: Vec::new(),
            marks: 0,
            backrefs: false,
            group_of,
            backref_of,
        };
        c.push(Inst::Save(0))?;
        c.hir(h)?;
        c.push(Inst::Save(1))?;
        c.push(Inst::Match)?;
        Ok(Prog {
            insts: c.insts,
            groups: n,
            marks: c.marks,
            has_backrefs: c.backrefs,
            icase,
        })
    }

    /// The leftmost-longest match at or after `from`, with its groups; `None` also when the
    /// step budget ran out.
    pub fn find(&self, hay: &[u8], from: usize) -> Option<Vec<Option<(usize, usize)>>> {
        let mut budget = STEP_BUDGET;
        let mut s = from;
        while s <= hay.len() {
            match self.run(hay, s, None, &mut budget, false) {
                Run::Found(spans) => return Some(spans),
                Run::Exhausted => return None,
                Run::None => {}
            }
            s += 1;
        }
        None
    }

    /// The groups of the match known to span `start..end`, taken in priority order (greedy).
    /// `None` when it would need too much memory or work (the caller falls back).
    pub fn spans(
        &self,
        hay: &[u8],
        start: usize,
        end: usize,
    ) -> Option<Vec<Option<(usize, usize)>>> {
        let memo = !self.has_backrefs;
        if memo
            && self
                .insts
                .len()
                .saturating_mul(end.saturating_sub(start) + 1)
                > MAX_MEMO_BITS
        {
            return None;
        }
        let mut budget = STEP_BUDGET;
        match self.run(hay, start, Some(end), &mut budget, memo) {
            Run::Found(s) => Some(s),
            _ => None,
        }
    }

    fn look(l: Look, hay: &[u8], pos: usize) -> bool {
        let word = |b: Option<&u8>| b.is_some_and(|&c| c.is_ascii_alphanumeric() || c == b'_');
        let before = word(pos.checked_sub(1).and_then(|p| hay.get(p)));
        let after = word(hay.get(pos));
        match l {
            Look::Start => pos == 0,
            Look::End => pos == hay.len(),
            Look::StartLF | Look::StartCRLF => {
                pos == 0 || pos.checked_sub(1).and_then(|p| hay.get(p)) == Some(&b'\n')
            }
            Look::EndLF | Look::EndCRLF => pos == hay.len() || hay.get(pos) == Some(&b'\n'),
            Look::WordAscii | Look::WordUnicode => before != after,
            Look::WordAsciiNegate | Look::WordUnicodeNegate => before == after,
            Look::WordStartAscii | Look::WordStartUnicode => !before && after,
            Look::WordEndAscii | Look::WordEndUnicode => before && !after,
            Look::WordStartHalfAscii | Look::WordStartHalfUnicode => !before,
            Look::WordEndHalfAscii | Look::WordEndHalfUnicode => !after,
        }
    }

    /// One anchored run at `start`. `target`: the match must end there (first found wins);
    /// otherwise every path is tried and the longest end kept.
    fn run(
        &self,
        hay: &[u8],
        start: usize,
        target: Option<usize>,
        budget: &mut u64,
        memo: bool,
    ) -> Run {
        enum Frame {
            Try(usize, usize),
            Slot(usize, Option<usize>),
            Mark(usize, usize),
        }
        let nslots = 2 * (self.groups + 1);
        let mut slots: Vec<Option<usize>> = vec![None; nslots];
        let mut marks: Vec<usize> = vec![usize::MAX; self.marks];
        let width = target.map_or(0, |e| e - start + 1);
        let mut seen: Vec<u64> = if memo {
            vec![0; (self.insts.len() * width).div_ceil(64)]
        } else {
            Vec::new()
        };
        let mut best: Option<(usize, Vec<Option<usize>>)> = None;
        let mut stack = vec![Frame::Try(0, start)];
        while let Some(f) = stack.pop() {
            let (mut pc, mut pos) = match f {
                Frame::Try(pc, pos) => (pc, pos),
                Frame::Slot(s, v) => {
                    if let Some(x) = slots.get_mut(s) {
                        *x = v;
                    }
                    continue;
                }
                Frame::Mark(m, v) => {
                    if let Some(x) = marks.get_mut(m) {
                        *x = v;
                    }
                    continue;
                }
            };
            loop {
                if *budget == 0 {
                    return Run::Exhausted;
                }
                *budget -= 1;
                if memo {
                    let Some(off) = pos.checked_sub(start) else {
                        break;
                    };
                    if off >= width {
                        break;
                    }
                    let bit = pc * width + off;
                    let Some(w) = seen.get_mut(bit / 64) else {
                        break;
                    };
                    if *w & (1 << (bit % 64)) != 0 {
                        break;
                    }
                    *w |= 1 << (bit % 64);
                }
                let Some(inst) = self.insts.get(pc) else {
                    break;
                };
                match inst {
                    Inst::Lit(l) => {
                        let Some(h) = hay.get(pos..pos + l.len()) else {
                            break;
                        };
                        if h != &l[..] {
                            break;
                        }
                        pos += l.len();
                        pc += 1;
                    }
                    Inst::Class(set) => {
                        let Some(&b) = hay.get(pos) else { break };
                        let b = usize::from(b);
                        if set.get(b / 64).is_none_or(|w| w & (1 << (b % 64)) == 0) {
                            break;
                        }
                        pos += 1;
                        pc += 1;
                    }
                    Inst::Split(a, b) => {
                        stack.push(Frame::Try(*b, pos));
                        pc = *a;
                    }
                    Inst::Jmp(a) => pc = *a,
                    Inst::Save(s) => {
                        let old = slots.get(*s).copied().flatten();
                        stack.push(Frame::Slot(*s, old));
                        if let Some(x) = slots.get_mut(*s) {
                            *x = Some(pos);
                        }
                        pc += 1;
                    }
                    Inst::Look(l) => {
                        if !Self::look(*l, hay, pos) {
                            break;
                        }
                        pc += 1;
                    }
                    Inst::Backref(g) => {
                        let (Some(Some(s)), Some(Some(e))) =
                            (slots.get(2 * g), slots.get(2 * g + 1))
                        else {
                            break;
                        };
                        let len = e.saturating_sub(*s);
                        let (Some(want), Some(have)) = (hay.get(*s..*e), hay.get(pos..pos + len))
                        else {
                            break;
                        };
                        let same = if self.icase {
                            want.eq_ignore_ascii_case(have)
                        } else {
                            want == have
                        };
                        if !same {
                            break;
                        }
                        pos += len;
                        pc += 1;
                    }
                    Inst::Mark(m) => {
                        let old = marks.get(*m).copied().unwrap_or(usize::MAX);
                        stack.push(Frame::Mark(*m, old));
                        if let Some(x) = marks.get_mut(*m) {
                            *x = pos;
                        }
                        pc += 1;
                    }
                    Inst::Progress(m) => {
                        if marks.get(*m) == Some(&pos) {
                            break;
                        }
                        pc += 1;
                    }
                    Inst::Match => {
                        match target {
                            Some(e) if pos == e => return Run::Found(spans_of(&slots)),
                            Some(_) => {}
                            None => {
                                if best.as_ref().is_none_or(|(b, _)| pos > *b) {
                                    best = Some((pos, slots.clone()));
                                }
                                if pos == hay.len() {
                                    stack.clear();
                                }
                            }
                        }
                        break;
                    }
                }
            }
        }
        match best {
            Some((_, s)) => Run::Found(spans_of(&s)),
            None => Run::None,
        }
    }
}

enum Run {
    Found(Vec<Option<(usize, usize)>>),
    None,
    Exhausted,
}

fn spans_of(slots: &[Option<usize>]) -> Vec<Option<(usize, usize)>> {
    slots
        .chunks(2)
        .map(|c| match c {
            [Some(s), Some(e)] if s <= e => Some((*s, *e)),
            _ => None,
        })
        .collect()
}
