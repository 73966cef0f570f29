//! `unexpand [OPTION]... [FILE]...`, GNU coreutils 9.1: blanks to tabs at the stops of
//! [`crate::text::tabstops`]; only leading blanks unless `-a` or `-t` (`--first-only` undoes
//! that). The operands are one stream, read in chunks.

use std::ffi::OsString;

use crate::Stop;
use crate::support::args::parse_args;
use crate::text::tabstops::{TabStops, each_byte, obsolete_stops, stops};
use crate::{Ctx, Outcome};

/// Convert blanks in each FILE to tabs, writing to standard output.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "unexpand [OPTION]... [FILE]...")]
pub struct UnexpandArgs {
    /// convert all blanks, instead of just initial blanks
    #[arg(short = 'a', long = "all")]
    all: bool,
    /// convert only leading sequences of blanks (overrides -a)
    #[arg(long = "first-only")]
    first_only: bool,
    /// have tabs N characters apart instead of 8 (enables -a)
    #[arg(short = 't', long = "tabs", value_name = "N", action = clap::ArgAction::Append)]
    tabs: Vec<OsString>,
    files: Vec<OsString>,
}

/// GNU's `unexpand` state for the line being read.
struct Line {
    convert: bool,
    column: u64,
    pending: Vec<u8>,
    one_blank_before_tab_stop: bool,
    prev_blank: bool,
    index: usize,
}

impl Line {
    fn new() -> Self {
        Line {
            convert: true,
            column: 0,
            pending: Vec::new(),
            one_blank_before_tab_stop: false,
            prev_blank: true,
            index: 0,
        }
    }

    fn byte(&mut self, mut c: u8, t: &TabStops, entire: bool, out: &mut Vec<u8>) {
        if self.convert {
            let blank = c == b' ' || c == b'\t';
            if blank {
                match t.next(self.column, &mut self.index) {
                    None => self.convert = false,
                    Some(next) => {
                        if c == b'\t' {
                            self.column = next;
                            if let Some(p) = self.pending.first_mut() {
                                *p = b'\t';
                            }
                        } else {
                            self.column += 1;
                            if !(self.prev_blank && self.column == next) {
                                if self.column == next {
                                    self.one_blank_before_tab_stop = true;
                                }
                                self.pending.push(c);
                                self.prev_blank = true;
                                return;
                            }
                            c = b'\t';
                            if let Some(p) = self.pending.first_mut() {
                                *p = b'\t';
                            }
                        }
                        // Drop the pending blanks, but a single one just before the
                        // previous stop.
                        self.pending
                            .truncate(usize::from(self.one_blank_before_tab_stop));
                    }
                }
            } else if c == b'\x08' {
                self.column = self.column.saturating_sub(1);
                self.index = self.index.saturating_sub(1);
            } else {
                self.column += 1;
            }
            if !self.pending.is_empty() {
                if self.pending.len() > 1
                    && self.one_blank_before_tab_stop
                    && let Some(p) = self.pending.first_mut()
                {
                    *p = b'\t';
                }
                out.append(&mut self.pending);
                self.one_blank_before_tab_stop = false;
            }
            self.prev_blank = blank;
            self.convert &= entire || blank;
        }
        out.push(c);
    }
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<UnexpandArgs>(&obsolete_stops(args))?;
    let entire = (a.all || !a.tabs.is_empty()) && !a.first_only;
    let t = stops(&a.tabs)?;
    let mut line = Line::new();
    Ok(each_byte(a.files, ctx, |c, out| match c {
        Some(c) => {
            line.byte(c, &t, entire, out);
            if c == b'\n' {
                line = Line::new();
            }
        }
        None => out.append(&mut line.pending),
    }))
}

#[cfg(test)]
mod tests {
    use crate::testing::world::{World, text, texts};

    fn unexpand(w: &World, args: &[&str]) -> (String, String, i32) {
        text(&w.run(crate::CommandName::Unexpand, args))
    }

    #[test]
    fn unexpands_as_gnu() {
        // Expected outputs from GNU coreutils 9.1 unexpand, LC_ALL=C.
        let w = World::new(
            texts()
                .file("/s/lead", b"        x       y\n")
                .file("/s/all", b"a       b  c    d\n")
                .file("/s/mix", b"a    \tb\n")
                .file("/s/three", b"   x\n")
                .file("/s/four", b"    x    y\n"),
        );
        assert_eq!(unexpand(&w, &["lead"]).0, "\tx       y\n");
        assert_eq!(unexpand(&w, &["-a", "all"]).0, "a\tb  c\td\n");
        assert_eq!(unexpand(&w, &["-a", "mix"]).0, "a\tb\n");
        assert_eq!(unexpand(&w, &["-t", "2,4", "three"]).0, "\t x\n");
        assert_eq!(
            unexpand(&w, &["--first-only", "-t4", "four"]).0,
            "\tx    y\n"
        );
        assert_eq!(unexpand(&w, &["-t4", "four"]).0, "\tx\t y\n");
        assert_eq!(
            unexpand(&w, &["-t", "2,1", "four"]),
            (
                String::new(),
                "unexpand: tab sizes must be ascending\n".into(),
                1
            )
        );
    }
}
