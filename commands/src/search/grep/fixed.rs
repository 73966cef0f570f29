//! `-F` (and `-G`/`-E` patterns that are all plain strings) on a multi-pattern automaton
//! (the `aho-corasick` crate): time linear in the input whatever the number or length of
//! the patterns, where one `regex` alternation of them can take seconds to build and search.
//!
//! GNU's semantics, as its `kwset` matcher gives them in the C locale:
//! - a line is selected when any pattern occurs in it (`-i`: ASCII case folded);
//! - `-o` prints the leftmost-longest occurrences, one after the other (`aaa` with `a` and
//!   `aa`: `aa` then `a`);
//! - `-w`: an occurrence counts when no word constituent (`[[:alnum:]_]`) touches it; when
//!   the first one does not, a later (or shorter) occurrence is tried, so `foobar foo`
//!   matches `foo`;
//! - `-x` (which wins over `-w`): the whole line is one of the patterns.
//!
//! Patterns are split at newlines; with `-z` one may hold a NUL, the terminator then: an
//! occurrence across a line end is skipped, as a match never spans lines.

use aho_corasick::{AhoCorasick, AhoCorasickKind, Anchored, Input, MatchKind, StartKind};
use memchr::{memchr, memrchr};

/// A word constituent for `-w`.
fn word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The patterns as automata: leftmost-longest (unanchored and anchored, for `-x`) and, for
/// `-w`, every occurrence (overlapping).
pub(super) struct Fixed {
    longest: AhoCorasick,
    /// One pattern with `-i` (neither `-w` nor `-x`): searched by [`Folded`], which skips
    /// where the automaton's prefilter stops at every byte that may start the pattern.
    folded: Option<Folded>,
    all: Option<AhoCorasick>,
    eol: u8,
    line: bool,
    word: bool,
}

impl Fixed {
    /// The automata for `pats`; `Err`: the automaton could not be built (too large).
    pub(super) fn new(
        pats: &[Vec<u8>],
        icase: bool,
        line: bool,
        word: bool,
        eol: u8,
    ) -> Result<Fixed, String> {
        let word = word && !line;
        // The DFA searches fastest but its construction grows faster than linearly with the
        // patterns' length (24 s for one 40,000-byte pattern): only for short sets.
        let total: usize = pats.iter().map(Vec::len).sum();
        let kind = if total <= 500 {
            AhoCorasickKind::DFA
        } else {
            AhoCorasickKind::ContiguousNFA
        };
        let longest = AhoCorasick::builder()
            .kind(Some(kind))
            .match_kind(MatchKind::LeftmostLongest)
            .start_kind(if line {
                StartKind::Anchored
            } else {
                StartKind::Unanchored
            })
            .ascii_case_insensitive(icase)
            .build(pats)
            .map_err(|e| e.to_string())?;
        let all = if word {
            Some(
                AhoCorasick::builder()
                    .kind(Some(kind))
                    .match_kind(MatchKind::Standard)
                    .ascii_case_insensitive(icase)
                    .build(pats)
                    .map_err(|e| e.to_string())?,
            )
        } else {
            None
        };
        let folded = match pats {
            [p] if icase && !line && !word && !p.is_empty() => Some(Folded::new(p)),
            _ => None,
        };
        Ok(Fixed {
            longest,
            folded,
            all,
            eol,
            line,
            word,
        })
    }

    /// The first match at or after `start` in `hay` (whole lines ended by the terminator,
    /// the last one possibly without): leftmost-longest, within one line.
    pub(super) fn find_at(&self, hay: &[u8], start: usize) -> Option<(usize, usize)> {
        if start > hay.len() {
            return None;
        }
        if self.line {
            return self.find_line(hay, start);
        }
        if self.word {
            return self.find_word(hay, start);
        }
        let mut from = start;
        loop {
            let (s, e) = self.find_from(hay, from)?;
            // A pattern holding the terminator (only possible with `-z` and a NUL in a
            // pattern file) never matches across lines.
            if hay.get(s..e).is_some_and(|m| memchr(self.eol, m).is_none()) {
                return Some((s, e));
            }
            from = s + 1;
        }
    }

    /// The leftmost-longest occurrence at or after `from`, lines not looked at.
    fn find_from(&self, hay: &[u8], from: usize) -> Option<(usize, usize)> {
        if let Some(f) = &self.folded {
            return f.find(hay, from);
        }
        let m = self
            .longest
            .try_find(Input::new(hay).range(from..))
            .ok()
            .flatten()?;
        Some((m.start(), m.end()))
    }

    /// Whether one line (without its terminator) matches.
    pub(super) fn is_match(&self, line: &[u8]) -> bool {
        if self.line {
            return self.whole(line);
        }
        if self.word {
            return self.find_word(line, 0).is_some();
        }
        self.find_from(line, 0).is_some()
    }

    /// `-x`: whether the line is one of the patterns (the longest anchored match is the whole
    /// line when any is).
    fn whole(&self, line: &[u8]) -> bool {
        self.longest
            .try_find(Input::new(line).anchored(Anchored::Yes))
            .ok()
            .flatten()
            .is_some_and(|m| m.end() == line.len())
    }

    /// `-x` over many lines: the first whole line at or after `start` that is a pattern.
    fn find_line(&self, hay: &[u8], start: usize) -> Option<(usize, usize)> {
        let mut ls = hay
            .get(..start)
            .and_then(|s| memrchr(self.eol, s))
            .map_or(0, |i| i + 1);
        // A line that began before `start` was already looked at.
        if ls < start {
            ls = hay
                .get(start..)
                .and_then(|s| memchr(self.eol, s))
                .map(|i| start + i + 1)?;
        }
        while ls <= hay.len() {
            let le = hay
                .get(ls..)
                .and_then(|s| memchr(self.eol, s))
                .map_or(hay.len(), |i| ls + i);
            if self.whole(hay.get(ls..le).unwrap_or_default()) {
                return Some((ls, le));
            }
            if le == hay.len() {
                break;
            }
            ls = le + 1;
        }
        None
    }

    /// Whether no word constituent touches `hay[s..e]`.
    fn bounded(hay: &[u8], s: usize, e: usize) -> bool {
        let before = s.checked_sub(1).and_then(|k| hay.get(k)).copied();
        let after = hay.get(e).copied();
        !before.is_some_and(word_byte) && !after.is_some_and(word_byte)
    }

    /// `-w`: the leftmost-longest word occurrence at or after `start`, in the first line
    /// (from `start` on) that has one.
    fn find_word(&self, hay: &[u8], start: usize) -> Option<(usize, usize)> {
        let all = self.all.as_ref()?;
        let ok = |s: usize, e: usize| {
            Self::bounded(hay, s, e) && hay.get(s..e).is_some_and(|m| memchr(self.eol, m).is_none())
        };
        // Occurrences come in the order of their ends: the first good one is in the first
        // line that has one.
        let first = all
            .try_find_overlapping_iter(Input::new(hay).range(start..))
            .ok()?
            .find(|m| ok(m.start(), m.end()))?;
        let le = hay
            .get(first.end()..)
            .and_then(|s| memchr(self.eol, s))
            .map_or(hay.len(), |i| first.end() + i);
        let ls = hay
            .get(..first.start())
            .and_then(|s| memrchr(self.eol, s))
            .map_or(0, |i| i + 1)
            .max(start);
        all.try_find_overlapping_iter(Input::new(hay).range(ls..le))
            .ok()?
            .filter(|m| ok(m.start(), m.end()))
            .map(|m| (m.start(), m.end()))
            .min_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)))
    }
}

/// One pattern, ASCII case folded, found by Boyer-Moore-Horspool, as GNU's `kwset` finds it:
/// the byte under the pattern's last position says how far the pattern can move on (up to
/// its length), so most of the text is never looked at.
struct Folded {
    /// The pattern, lower-cased.
    pat: Vec<u8>,
    /// For each byte, how far the pattern moves when that byte is under its last position
    /// and no occurrence ends there.
    skip: [usize; 256],
}

impl Folded {
    fn new(pat: &[u8]) -> Folded {
        let pat = pat.to_ascii_lowercase();
        let m = pat.len();
        let mut skip = [m; 256];
        for (i, &b) in pat.iter().enumerate().take(m.saturating_sub(1)) {
            skip[usize::from(b)] = m - 1 - i;
            skip[usize::from(b.to_ascii_uppercase())] = m - 1 - i;
        }
        Folded { pat, skip }
    }

    /// The first occurrence at or after `from`.
    fn find(&self, hay: &[u8], from: usize) -> Option<(usize, usize)> {
        let m = self.pat.len();
        let (&last, head) = self.pat.split_last()?;
        let mut end = from.checked_add(m)?;
        while let Some(&b) = hay.get(end - 1) {
            if b.to_ascii_lowercase() == last
                && hay
                    .get(end - m..end - 1)
                    .is_some_and(|w| w.eq_ignore_ascii_case(head))
            {
                return Some((end - m, end));
            }
            end += self.skip[usize::from(b)];
        }
        None
    }
}

/// Whether a `-G`/`-E` pattern is a plain string (nothing special in it, in either syntax),
/// so that the string automaton gives exactly what the regular expression would.
pub(super) fn is_plain(p: &[u8], extended: bool) -> bool {
    let special: &[u8] = if extended {
        b"\\.[]*^$+?{}()|"
    } else {
        b"\\.[]*^$"
    };
    !p.iter().any(|c| special.contains(c))
}

#[cfg(test)]
mod tests {
    use super::Folded;

    /// Every occurrence a plain scan finds, first one first.
    fn naive(hay: &[u8], pat: &[u8], from: usize) -> Option<(usize, usize)> {
        (from..=hay.len().checked_sub(pat.len())?)
            .find(|&s| hay[s..s + pat.len()].eq_ignore_ascii_case(pat))
            .map(|s| (s, s + pat.len()))
    }

    #[test]
    fn the_folded_search_finds_what_a_plain_scan_finds() {
        // Small alphabets, so that near misses and overlaps are frequent.
        let alphabet = b"aAbB\nx-";
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        for _ in 0..20_000 {
            let pat: Vec<u8> = (0..=next(4))
                .map(|_| alphabet[next(alphabet.len())])
                .collect();
            let hay: Vec<u8> = (0..next(40))
                .map(|_| alphabet[next(alphabet.len())])
                .collect();
            let f = Folded::new(&pat);
            for from in 0..=hay.len() + 1 {
                assert_eq!(
                    f.find(&hay, from),
                    naive(&hay, &pat, from.min(hay.len() + 1)),
                    "{pat:?} in {hay:?} from {from}"
                );
            }
        }
    }
}
