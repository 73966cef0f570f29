//! GNU diff's comparison (diffutils 3.8 `io.c` and `analyze.c`, gnulib `diffseq.h`), written
//! anew: the identical prefix and suffix are set aside (keeping `horizon` lines of each), the
//! remaining lines are put into equivalence classes, lines with no match in the other file are
//! discarded up front (`discard_confusing_lines`), Myers' O(ND) middle-snake search with GNU's
//! `TOO_EXPENSIVE` cut-off marks the changed lines, and the runs of changes are slid to the
//! places GNU prints them (`shift_boundaries`). The same steps in the same order give the same
//! edit script as GNU, which is not unique in general.

// The names are the algorithm's own (x, y, d for the diagonal, fmin and fmax, a and b for the
// two files).
#![allow(clippy::many_single_char_names, clippy::similar_names)]

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A fast multiply-rotate hash (the one rustc uses) for the line table: the default `SipHash`
/// dominated the comparison of large files, and nothing here needs its resistance to chosen
/// keys (a bad case only costs time, within the table's bounds).
#[derive(Default)]
struct LineHasher(u64);

impl Hasher for LineHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
        }
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

type Classes<'t> = HashMap<(Cow<'t, [u8]>, bool), usize, BuildHasherDefault<LineHasher>>;

/// A file's text as GNU holds it: the bytes with a newline appended when the last line lacks
/// one, and where each line starts.
pub struct Text {
    pub buf: Vec<u8>,
    pub missing_newline: bool,
    /// The start of each line, then `buf.len()`.
    pub starts: Vec<usize>,
}

impl Text {
    pub fn new(mut buf: Vec<u8>) -> Text {
        let missing_newline = buf.last().is_some_and(|&c| c != b'\n');
        if missing_newline {
            buf.push(b'\n');
        }
        let mut starts = Vec::with_capacity(buf.len() / 32 + 2);
        starts.push(0);
        for (i, &c) in buf.iter().enumerate() {
            if c == b'\n' {
                starts.push(i + 1);
            }
        }
        Text {
            buf,
            missing_newline,
            starts,
        }
    }

    /// The number of lines.
    pub fn lines(&self) -> usize {
        self.starts.len() - 1
    }

    /// Line `i` with its newline (the appended one too).
    pub fn line(&self, i: usize) -> &[u8] {
        match (self.starts.get(i), self.starts.get(i + 1)) {
            (Some(&s), Some(&e)) => self.buf.get(s..e).unwrap_or_default(),
            _ => &[],
        }
    }

    /// Whether line `i` is the last one and had no newline in the file.
    pub fn incomplete(&self, i: usize) -> bool {
        self.missing_newline && i + 1 == self.lines()
    }

    /// The index of the line starting at byte `at` (a line start or the end).
    fn line_at(&self, at: usize) -> usize {
        self.starts.partition_point(|&s| s < at)
    }
}

/// How white space is ignored (`-b`, `-w`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum White {
    None,
    SpaceChange,
    AllSpace,
}

#[allow(clippy::struct_excessive_bools)]
#[derive(Debug, Clone, Copy)]
pub struct Opts {
    pub ignore_case: bool,
    pub white: White,
    /// Lines of the identical ends kept in the comparison (the context width).
    pub horizon: usize,
    /// Every style but `-e` keeps an incomplete last line apart from complete ones.
    pub robust: bool,
    /// `-d`: no discards, no cut-off.
    pub minimal: bool,
}

/// One change: `deleted` lines of file 0 from `line0` replaced by `inserted` lines of file 1
/// from `line1` (0-based line numbers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Change {
    pub line0: usize,
    pub line1: usize,
    pub deleted: usize,
    pub inserted: usize,
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')
}

/// The form of a line (without its newline) two lines must share to be equal under the
/// options.
fn key<'a>(line: &'a [u8], o: &Opts) -> Cow<'a, [u8]> {
    if o.white == White::None && !o.ignore_case {
        return Cow::Borrowed(line);
    }
    let fold = |c: u8| {
        if o.ignore_case {
            c.to_ascii_lowercase()
        } else {
            c
        }
    };
    let mut out = Vec::with_capacity(line.len());
    match o.white {
        White::None => out.extend(line.iter().map(|&c| fold(c))),
        White::AllSpace => out.extend(line.iter().filter(|&&c| !is_space(c)).map(|&c| fold(c))),
        White::SpaceChange => {
            let mut i = 0;
            while let Some(&c) = line.get(i) {
                if is_space(c) {
                    while line.get(i).is_some_and(|&c| is_space(c)) {
                        i += 1;
                    }
                    if i >= line.len() {
                        break;
                    }
                    out.push(b' ');
                } else {
                    out.push(fold(c));
                    i += 1;
                }
            }
        }
    }
    Cow::Owned(out)
}

/// The identical ends: (lines of prefix left out, the first line of each file's left-out
/// suffix).
fn identical_ends(a: &Text, b: &Text, o: &Opts) -> (usize, usize, usize) {
    let (n0, n1) = (a.buf.len(), b.buf.len());
    let mut p = a
        .buf
        .iter()
        .zip(b.buf.iter())
        .take_while(|(x, y)| x == y)
        .count();
    if o.robust
        && ((n0 - usize::from(a.missing_newline) < p) != (n1 - usize::from(b.missing_newline) < p))
    {
        p -= 1;
    }
    let mut i = o.horizon;
    while p > 0 {
        if a.buf.get(p - 1) == Some(&b'\n') {
            if i == 0 {
                break;
            }
            i -= 1;
        }
        p -= 1;
    }
    let prefix_end = p;
    let (mut s0, mut s1) = (n0, n1);
    if !o.robust || a.missing_newline == b.missing_newline {
        let beg0 = prefix_end + n0.saturating_sub(n1);
        let (mut p0, mut p1) = (n0, n1);
        while p0 != beg0 {
            p0 -= 1;
            p1 -= 1;
            if a.buf.get(p0) != b.buf.get(p1) {
                p0 += 1;
                p1 += 1;
                break;
            }
        }
        let at_begin = |t: &Text, q: usize| q == 0 || t.buf.get(q - 1) == Some(&b'\n');
        let mut i = o.horizon + usize::from(!(at_begin(a, p0) && at_begin(b, p1)));
        let from = p0;
        while i > 0 && p0 != n0 {
            i -= 1;
            while a.buf.get(p0).is_some_and(|&c| c != b'\n') {
                p0 += 1;
            }
            p0 += 1;
        }
        p1 += p0 - from;
        s0 = p0;
        s1 = p1;
    }
    (a.line_at(prefix_end), a.line_at(s0), b.line_at(s1))
}

/// The edit script turning `a` into `b`, in order.
pub fn diff(a: &Text, b: &Text, o: &Opts) -> Vec<Change> {
    let (prefix, end0, end1) = identical_ends(a, b, o);
    let len0 = end0.saturating_sub(prefix);
    let len1 = end1.saturating_sub(prefix);

    // Equivalence classes, numbered from 1 in order of first appearance.
    let mut classes: Classes =
        HashMap::with_capacity_and_hasher(len0 + len1, BuildHasherDefault::default());
    let apart = o.robust && o.white == White::None;
    let eq0: Vec<usize> = (prefix..end0)
        .map(|i| classify(&mut classes, a, i, o, apart))
        .collect();
    let eq1: Vec<usize> = (prefix..end1)
        .map(|i| classify(&mut classes, b, i, o, apart))
        .collect();
    let nclasses = classes.len() + 1;
    drop(classes);

    let mut changed0 = vec![false; len0 + 2];
    let mut changed1 = vec![false; len1 + 2];
    let (kept0, real0, kept1, real1) = discard(
        &eq0,
        &eq1,
        nclasses,
        o.minimal,
        &mut changed0,
        &mut changed1,
    );

    let mut search = Search::new(&kept0, &kept1);
    search.compare(o.minimal);
    for (x, &c) in search.del.iter().enumerate() {
        if c && let Some(&r) = real0.get(x) {
            set(&mut changed0, r, true);
        }
    }
    for (y, &c) in search.ins.iter().enumerate() {
        if c && let Some(&r) = real1.get(y) {
            set(&mut changed1, r, true);
        }
    }
    drop(search);
    shift_boundaries(&eq0, &mut changed0, &changed1);
    shift_boundaries(&eq1, &mut changed1, &changed0);

    let mut script = Vec::new();
    let (mut i0, mut i1) = (0usize, 0usize);
    while i0 < len0 || i1 < len1 {
        if get(&changed0, i0) || get(&changed1, i1) {
            let (l0, l1) = (i0, i1);
            while get(&changed0, i0) {
                i0 += 1;
            }
            while get(&changed1, i1) {
                i1 += 1;
            }
            script.push(Change {
                line0: l0 + prefix,
                line1: l1 + prefix,
                deleted: i0 - l0,
                inserted: i1 - l1,
            });
        }
        i0 += 1;
        i1 += 1;
    }
    script
}

/// The class of line `i` of `t`, a new one (numbered from 1) when no earlier line is equal.
fn classify<'t>(classes: &mut Classes<'t>, t: &'t Text, i: usize, o: &Opts, apart: bool) -> usize {
    let line = t.line(i);
    let body = line.strip_suffix(b"\n").unwrap_or(line);
    let k = (key(body, o), apart && t.incomplete(i));
    let next = classes.len() + 1;
    *classes.entry(k).or_insert(next)
}

/// `changed[i]` with the sentinels GNU keeps at -1 and at the end (index shifted by one).
fn get(v: &[bool], i: usize) -> bool {
    v.get(i + 1).copied().unwrap_or(false)
}

fn set(v: &mut [bool], i: usize, to: bool) {
    if let Some(c) = v.get_mut(i + 1) {
        *c = to;
    }
}

/// The same at a signed index (-1 is the leading sentinel).
fn geti(v: &[bool], i: isize) -> bool {
    usize::try_from(i + 1)
        .ok()
        .and_then(|k| v.get(k).copied())
        .unwrap_or(false)
}

fn seti(v: &mut [bool], i: isize, to: bool) {
    if let Some(c) = usize::try_from(i + 1).ok().and_then(|k| v.get_mut(k)) {
        *c = to;
    }
}

/// `discard_confusing_lines`: lines matching nothing in the other file are marked changed and
/// left out of the search, as are runs of lines matching very many (in the middle of other
/// discards). Returns the kept classes and their real indexes, per file.
#[allow(clippy::type_complexity)]
fn discard(
    eq0: &[usize],
    eq1: &[usize],
    nclasses: usize,
    minimal: bool,
    changed0: &mut [bool],
    changed1: &mut [bool],
) -> (Vec<usize>, Vec<usize>, Vec<usize>, Vec<usize>) {
    let mut count0 = vec![0usize; nclasses];
    let mut count1 = vec![0usize; nclasses];
    for &e in eq0 {
        if let Some(c) = count0.get_mut(e) {
            *c += 1;
        }
    }
    for &e in eq1 {
        if let Some(c) = count1.get_mut(e) {
            *c += 1;
        }
    }
    let mark = |equivs: &[usize], counts: &[usize]| -> Vec<u8> {
        let end = equivs.len();
        let mut many = 5usize;
        let mut tem = end / 64;
        loop {
            tem >>= 2;
            if tem == 0 {
                break;
            }
            many *= 2;
        }
        let mut discards: Vec<u8> = equivs
            .iter()
            .map(|&e| {
                let n = counts.get(e).copied().unwrap_or(0);
                if n == 0 {
                    1
                } else if n > many {
                    2
                } else {
                    0
                }
            })
            .collect();
        settle(&mut discards);
        discards
    };
    let d0 = mark(eq0, &count1);
    let d1 = mark(eq1, &count0);
    let keep = |equivs: &[usize], discards: &[u8], changed: &mut [bool]| {
        let mut kept = Vec::with_capacity(equivs.len());
        let mut real = Vec::with_capacity(equivs.len());
        for (i, (&e, &d)) in equivs.iter().zip(discards).enumerate() {
            if minimal || d == 0 {
                kept.push(e);
                real.push(i);
            } else {
                set(changed, i, true);
            }
        }
        (kept, real)
    };
    let (k0, r0) = keep(eq0, &d0, changed0);
    let (k1, r1) = keep(eq1, &d1, changed1);
    (k0, r0, k1, r1)
}

/// GNU's second pass over the marks: provisional discards (2) stand only inside runs of
/// definite ones (1), under its rules on their proportion and position.
fn settle(d: &mut [u8]) {
    let end = d.len();
    let at = |d: &[u8], i: usize| d.get(i).copied().unwrap_or(0);
    let put = |d: &mut [u8], i: usize, v: u8| {
        if let Some(x) = d.get_mut(i) {
            *x = v;
        }
    };
    let mut i = 0;
    while i < end {
        if at(d, i) == 2 {
            put(d, i, 0);
        } else if at(d, i) != 0 {
            let mut provisional = 0usize;
            let mut j = i;
            while j < end {
                match at(d, j) {
                    0 => break,
                    2 => provisional += 1,
                    _ => {}
                }
                j += 1;
            }
            while j > i && at(d, j - 1) == 2 {
                j -= 1;
                put(d, j, 0);
                provisional -= 1;
            }
            let length = j - i;
            if provisional * 4 > length {
                while j > i {
                    j -= 1;
                    if at(d, j) == 2 {
                        put(d, j, 0);
                    }
                }
            } else {
                let mut minimum = 1usize;
                let mut tem = length >> 2;
                loop {
                    tem >>= 2;
                    if tem == 0 {
                        break;
                    }
                    minimum <<= 1;
                }
                minimum += 1;
                let mut consec = 0usize;
                let mut j = 0usize;
                while j < length {
                    if at(d, i + j) == 2 {
                        consec += 1;
                        if minimum == consec {
                            j -= consec;
                        } else if minimum < consec {
                            put(d, i + j, 0);
                        }
                    } else {
                        consec = 0;
                    }
                    j += 1;
                }
                let mut consec = 0usize;
                for j in 0..length {
                    if j >= 8 && at(d, i + j) == 1 {
                        break;
                    }
                    match at(d, i + j) {
                        2 => {
                            consec = 0;
                            put(d, i + j, 0);
                        }
                        0 => consec = 0,
                        _ => consec += 1,
                    }
                    if consec == 3 {
                        break;
                    }
                }
                i += length - 1;
                let mut consec = 0usize;
                for j in 0..length {
                    if j >= 8 && at(d, i - j) == 1 {
                        break;
                    }
                    match at(d, i - j) {
                        2 => {
                            consec = 0;
                            put(d, i - j, 0);
                        }
                        0 => consec = 0,
                        _ => consec += 1,
                    }
                    if consec == 3 {
                        break;
                    }
                }
            }
        }
        i += 1;
    }
}

/// The middle-snake search over the kept lines.
struct Search<'a> {
    x: &'a [usize],
    y: &'a [usize],
    fd: Vec<isize>,
    bd: Vec<isize>,
    /// Index of diagonal 0 in `fd` and `bd`.
    zero: isize,
    too_expensive: isize,
    del: Vec<bool>,
    ins: Vec<bool>,
}

struct Part {
    xmid: isize,
    ymid: isize,
    lo_minimal: bool,
    hi_minimal: bool,
}

#[allow(clippy::cast_possible_wrap, clippy::cast_sign_loss)]
impl<'a> Search<'a> {
    fn new(x: &'a [usize], y: &'a [usize]) -> Self {
        let diags = x.len() + y.len() + 3;
        let mut too_expensive: isize = 1;
        let mut d = diags;
        while d != 0 {
            too_expensive <<= 1;
            d >>= 2;
        }
        Search {
            x,
            y,
            fd: vec![0; diags],
            bd: vec![0; diags],
            zero: y.len() as isize + 1,
            too_expensive: too_expensive.max(4096),
            del: vec![false; x.len()],
            ins: vec![false; y.len()],
        }
    }

    fn eq(&self, i: isize, j: isize) -> bool {
        match (self.x.get(i as usize), self.y.get(j as usize)) {
            (Some(a), Some(b)) => a == b,
            _ => false,
        }
    }

    fn f(&self, d: isize) -> isize {
        self.fd.get((d + self.zero) as usize).copied().unwrap_or(0)
    }
    fn b(&self, d: isize) -> isize {
        self.bd.get((d + self.zero) as usize).copied().unwrap_or(0)
    }
    fn set_f(&mut self, d: isize, v: isize) {
        if let Some(s) = self.fd.get_mut((d + self.zero) as usize) {
            *s = v;
        }
    }
    fn set_b(&mut self, d: isize, v: isize) {
        if let Some(s) = self.bd.get_mut((d + self.zero) as usize) {
            *s = v;
        }
    }

    fn compare(&mut self, minimal: bool) {
        let mut stack = vec![(
            0isize,
            self.x.len() as isize,
            0isize,
            self.y.len() as isize,
            minimal,
        )];
        while let Some((mut xoff, mut xlim, mut yoff, mut ylim, minimal)) = stack.pop() {
            while xoff < xlim && yoff < ylim && self.eq(xoff, yoff) {
                xoff += 1;
                yoff += 1;
            }
            while xoff < xlim && yoff < ylim && self.eq(xlim - 1, ylim - 1) {
                xlim -= 1;
                ylim -= 1;
            }
            if xoff == xlim {
                for y in yoff..ylim {
                    if let Some(c) = self.ins.get_mut(y as usize) {
                        *c = true;
                    }
                }
            } else if yoff == ylim {
                for x in xoff..xlim {
                    if let Some(c) = self.del.get_mut(x as usize) {
                        *c = true;
                    }
                }
            } else {
                let p = self.diag(xoff, xlim, yoff, ylim, minimal);
                stack.push((p.xmid, xlim, p.ymid, ylim, p.hi_minimal));
                stack.push((xoff, p.xmid, yoff, p.ymid, p.lo_minimal));
            }
        }
    }

    #[allow(clippy::too_many_lines)]
    fn diag(&mut self, xoff: isize, xlim: isize, yoff: isize, ylim: isize, minimal: bool) -> Part {
        let dmin = xoff - ylim;
        let dmax = xlim - yoff;
        let fmid = xoff - yoff;
        let bmid = xlim - ylim;
        let (mut fmin, mut fmax, mut bmin, mut bmax) = (fmid, fmid, bmid, bmid);
        let odd = (fmid - bmid) & 1 != 0;
        self.set_f(fmid, xoff);
        self.set_b(bmid, xlim);
        let mut c: isize = 1;
        loop {
            if fmin > dmin {
                fmin -= 1;
                self.set_f(fmin - 1, -1);
            } else {
                fmin += 1;
            }
            if fmax < dmax {
                fmax += 1;
                self.set_f(fmax + 1, -1);
            } else {
                fmax -= 1;
            }
            let mut d = fmax;
            while d >= fmin {
                let (tlo, thi) = (self.f(d - 1), self.f(d + 1));
                let x0 = if tlo < thi { thi } else { tlo + 1 };
                let mut x = x0;
                let mut y = x0 - d;
                while x < xlim && y < ylim && self.eq(x, y) {
                    x += 1;
                    y += 1;
                }
                self.set_f(d, x);
                if odd && bmin <= d && d <= bmax && self.b(d) <= x {
                    return Part {
                        xmid: x,
                        ymid: y,
                        lo_minimal: true,
                        hi_minimal: true,
                    };
                }
                d -= 2;
            }
            if bmin > dmin {
                bmin -= 1;
                self.set_b(bmin - 1, isize::MAX);
            } else {
                bmin += 1;
            }
            if bmax < dmax {
                bmax += 1;
                self.set_b(bmax + 1, isize::MAX);
            } else {
                bmax -= 1;
            }
            let mut d = bmax;
            while d >= bmin {
                let (tlo, thi) = (self.b(d - 1), self.b(d + 1));
                let x0 = if tlo < thi { tlo } else { thi - 1 };
                let mut x = x0;
                let mut y = x0 - d;
                while xoff < x && yoff < y && self.eq(x - 1, y - 1) {
                    x -= 1;
                    y -= 1;
                }
                self.set_b(d, x);
                if !odd && fmin <= d && d <= fmax && x <= self.f(d) {
                    return Part {
                        xmid: x,
                        ymid: y,
                        lo_minimal: true,
                        hi_minimal: true,
                    };
                }
                d -= 2;
            }
            if !minimal && c >= self.too_expensive {
                let mut fxybest = -1;
                let mut fxbest = 0;
                let mut d = fmax;
                while d >= fmin {
                    let mut x = self.f(d).min(xlim);
                    let mut y = x - d;
                    if ylim < y {
                        x = ylim + d;
                        y = ylim;
                    }
                    if fxybest < x + y {
                        fxybest = x + y;
                        fxbest = x;
                    }
                    d -= 2;
                }
                let mut bxybest = isize::MAX;
                let mut bxbest = 0;
                let mut d = bmax;
                while d >= bmin {
                    let mut x = xoff.max(self.b(d));
                    let mut y = x - d;
                    if y < yoff {
                        x = yoff + d;
                        y = yoff;
                    }
                    if x + y < bxybest {
                        bxybest = x + y;
                        bxbest = x;
                    }
                    d -= 2;
                }
                return if (xlim + ylim) - bxybest < fxybest - (xoff + yoff) {
                    Part {
                        xmid: fxbest,
                        ymid: fxybest - fxbest,
                        lo_minimal: true,
                        hi_minimal: false,
                    }
                } else {
                    Part {
                        xmid: bxbest,
                        ymid: bxybest - bxbest,
                        lo_minimal: false,
                        hi_minimal: true,
                    }
                };
            }
            c += 1;
        }
    }
}

/// `shift_boundaries` for one file: slide each run of changes up to merge with earlier ones,
/// then down as far as it goes, then back up to line up with a run in the other file.
#[allow(clippy::cast_possible_wrap, clippy::cast_sign_loss)]
fn shift_boundaries(equivs: &[usize], changed: &mut [bool], other: &[bool]) {
    let eq = |i: isize| equivs.get(i as usize).copied().unwrap_or(0);
    let i_end = equivs.len() as isize;
    let mut i: isize = 0;
    let mut j: isize = 0;
    loop {
        while i < i_end && !geti(changed, i) {
            while geti(other, j) {
                j += 1;
            }
            j += 1;
            i += 1;
        }
        if i == i_end {
            break;
        }
        let mut start = i;
        i += 1;
        while geti(changed, i) {
            i += 1;
        }
        while geti(other, j) {
            j += 1;
        }
        let mut corresponding;
        loop {
            let runlength = i - start;
            while start > 0 && eq(start - 1) == eq(i - 1) {
                start -= 1;
                seti(changed, start, true);
                i -= 1;
                seti(changed, i, false);
                while geti(changed, start - 1) {
                    start -= 1;
                }
                j -= 1;
                while geti(other, j) {
                    j -= 1;
                }
            }
            corresponding = if geti(other, j - 1) { i } else { i_end };
            while i != i_end && eq(start) == eq(i) {
                seti(changed, start, false);
                start += 1;
                seti(changed, i, true);
                i += 1;
                while geti(changed, i) {
                    i += 1;
                }
                j += 1;
                while geti(other, j) {
                    corresponding = i;
                    j += 1;
                }
            }
            if runlength == i - start {
                break;
            }
        }
        while corresponding < i {
            start -= 1;
            seti(changed, start, true);
            i -= 1;
            seti(changed, i, false);
            j -= 1;
            while geti(other, j) {
                j -= 1;
            }
        }
    }
}
