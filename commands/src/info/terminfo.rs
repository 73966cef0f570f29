//! The few terminal descriptions the emulated machine knows (`tput`, `clear`): the values
//! ncurses 6.4's terminfo gives for them, for the capabilities scripts use. Nothing here
//! touches a real terminal: the commands only print these bytes.

use crate::Ctx;

/// One terminal type.
pub struct Term {
    pub names: &'static [&'static str],
    pub longname: &'static str,
    /// `colors`, `pairs`, `it` (-1: absent, as tput prints it).
    pub colors: i32,
    pub pairs: i32,
    pub tabs: i32,
    /// The boolean capabilities it has.
    pub booleans: &'static [&'static str],
    /// String capabilities without parameters, raw.
    pub strings: &'static [(&'static str, &'static [u8])],
    /// `setaf`/`setab`: none, 8 colours (`\E[3%p1%dm`) or 256 (xterm-256color's form).
    pub palette: Palette,
    /// `cup` present (`\E[%i%p1%d;%p2%dH`).
    pub cup: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Palette {
    None,
    Eight,
    Full,
}

const XTERM_STRINGS: &[(&str, &[u8])] = &[
    ("clear", b"\x1b[H\x1b[2J"),
    ("E3", b"\x1b[3J"),
    ("sgr0", b"\x1b(B\x1b[m"),
    ("bold", b"\x1b[1m"),
    ("dim", b"\x1b[2m"),
    ("smul", b"\x1b[4m"),
    ("rmul", b"\x1b[24m"),
    ("rev", b"\x1b[7m"),
    ("blink", b"\x1b[5m"),
    ("smso", b"\x1b[7m"),
    ("rmso", b"\x1b[27m"),
    ("sitm", b"\x1b[3m"),
    ("ritm", b"\x1b[23m"),
    ("el", b"\x1b[K"),
    ("ed", b"\x1b[J"),
    ("civis", b"\x1b[?25l"),
    ("cnorm", b"\x1b[?12l\x1b[?25h"),
    ("smcup", b"\x1b[?1049h\x1b[22;0;0t"),
    ("rmcup", b"\x1b[?1049l\x1b[23;0;0t"),
    ("home", b"\x1b[H"),
    ("cuu1", b"\x1b[A"),
    ("cud1", b"\n"),
    ("cub1", b"\x08"),
    ("cuf1", b"\x1b[C"),
    ("bel", b"\x07"),
    ("ind", b"\n"),
];

const XTERM_BOOLEANS: &[&str] = &["am", "bce", "km", "xenl"];

/// The terminals known, by name.
pub const TERMS: &[Term] = &[
    Term {
        names: &["xterm", "xterm-color", "xterm-16color"],
        longname: "xterm terminal emulator (X Window System)",
        colors: 8,
        pairs: 64,
        tabs: 8,
        booleans: XTERM_BOOLEANS,
        strings: XTERM_STRINGS,
        palette: Palette::Eight,
        cup: true,
    },
    Term {
        names: &["xterm-256color"],
        longname: "xterm with 256 colors",
        colors: 256,
        pairs: 65536,
        tabs: 8,
        booleans: XTERM_BOOLEANS,
        strings: XTERM_STRINGS,
        palette: Palette::Full,
        cup: true,
    },
    Term {
        names: &["screen"],
        longname: "VT 100/ANSI X3.64 virtual terminal",
        colors: 8,
        pairs: 64,
        tabs: 8,
        booleans: &["am", "km", "xenl"],
        strings: &[
            ("clear", b"\x1b[H\x1b[J"),
            ("sgr0", b"\x1b[m\x0f"),
            ("bold", b"\x1b[1m"),
            ("dim", b"\x1b[2m"),
            ("smul", b"\x1b[4m"),
            ("rmul", b"\x1b[24m"),
            ("rev", b"\x1b[7m"),
            ("blink", b"\x1b[5m"),
            ("smso", b"\x1b[3m"),
            ("rmso", b"\x1b[23m"),
            ("el", b"\x1b[K"),
            ("ed", b"\x1b[J"),
            ("civis", b"\x1b[?25l"),
            ("cnorm", b"\x1b[34h\x1b[?25h"),
            ("smcup", b"\x1b[?1049h"),
            ("rmcup", b"\x1b[?1049l"),
            ("home", b"\x1b[H"),
            ("cuu1", b"\x1bM"),
            ("cud1", b"\n"),
            ("cub1", b"\x08"),
            ("cuf1", b"\x1b[C"),
            ("bel", b"\x07"),
            ("ind", b"\n"),
        ],
        palette: Palette::Eight,
        cup: true,
    },
    Term {
        names: &["linux"],
        longname: "Linux console",
        colors: 8,
        pairs: 64,
        tabs: 8,
        booleans: &["am", "bce", "xenl"],
        strings: &[
            ("clear", b"\x1b[H\x1b[J"),
            ("E3", b"\x1b[3J"),
            ("sgr0", b"\x1b[m\x0f"),
            ("bold", b"\x1b[1m"),
            ("dim", b"\x1b[2m"),
            ("smul", b"\x1b[4m"),
            ("rmul", b"\x1b[24m"),
            ("rev", b"\x1b[7m"),
            ("blink", b"\x1b[5m"),
            ("smso", b"\x1b[7m"),
            ("rmso", b"\x1b[27m"),
            ("el", b"\x1b[K"),
            ("ed", b"\x1b[J"),
            ("civis", b"\x1b[?25l\x1b[?1c"),
            ("cnorm", b"\x1b[?25h\x1b[?0c"),
            ("home", b"\x1b[H"),
            ("cuu1", b"\x1b[A"),
            ("cud1", b"\n"),
            ("cub1", b"\x08"),
            ("cuf1", b"\x1b[C"),
            ("bel", b"\x07"),
            ("ind", b"\n"),
        ],
        palette: Palette::Eight,
        cup: true,
    },
    Term {
        names: &["vt100"],
        longname: "DEC VT100 (w/advanced video)",
        colors: -1,
        pairs: -1,
        tabs: 8,
        booleans: &["am", "xenl"],
        strings: &[
            ("clear", b"\x1b[H\x1b[J"),
            ("sgr0", b"\x1b[m\x0f"),
            ("bold", b"\x1b[1m"),
            ("smul", b"\x1b[4m"),
            ("rmul", b"\x1b[m"),
            ("rev", b"\x1b[7m"),
            ("blink", b"\x1b[5m"),
            ("smso", b"\x1b[7m"),
            ("rmso", b"\x1b[m"),
            ("el", b"\x1b[K"),
            ("ed", b"\x1b[J"),
            ("home", b"\x1b[H"),
            ("cuu1", b"\x1b[A"),
            ("cud1", b"\n"),
            ("cub1", b"\x08"),
            ("cuf1", b"\x1b[C"),
            ("bel", b"\x07"),
            ("ind", b"\n"),
        ],
        palette: Palette::None,
        cup: true,
    },
    Term {
        names: &["dumb"],
        longname: "80-column dumb tty",
        colors: -1,
        pairs: -1,
        tabs: -1,
        booleans: &["am"],
        strings: &[("cud1", b"\n"), ("bel", b"\x07"), ("ind", b"\n")],
        palette: Palette::None,
        cup: false,
    },
];

/// Capability names tput knows (any terminal): asking for one the terminal lacks is status
/// 1, for any other name status 4.
pub const KNOWN_STRINGS: &[&str] = &[
    "clear", "E3", "sgr0", "bold", "dim", "smul", "rmul", "rev", "blink", "smso", "rmso", "sitm",
    "ritm", "el", "el1", "ed", "civis", "cnorm", "cvvis", "smcup", "rmcup", "home", "cuu1", "cud1",
    "cub1", "cuf1", "bel", "ind", "ri", "flash", "invis", "smam", "rmam", "sc", "rc", "setaf",
    "setab", "setf", "setb", "cup", "op", "hpa", "vpa", "cuu", "cud", "cub", "cuf", "ech", "dch",
    "ich", "il", "dl", "il1", "dl1", "dch1", "ich1", "tsl", "fsl", "dsl",
];

/// Boolean capability names tput knows.
pub const KNOWN_BOOLEANS: &[&str] = &[
    "am", "bce", "km", "xenl", "hs", "bw", "eo", "hc", "in", "mir", "msgr", "os", "xon", "npc",
    "ccc",
];

/// Numeric capability names tput knows.
pub const KNOWN_NUMBERS: &[&str] = &["cols", "lines", "colors", "pairs", "it", "lm", "xmc"];

/// The terminal a name describes.
pub fn lookup(name: &str) -> Option<&'static Term> {
    TERMS.iter().find(|t| t.names.contains(&name))
}

/// `$TERM` as the command's environment has it (exported), if set.
pub fn term_var(ctx: &Ctx) -> Option<String> {
    ctx.vars
        .var("TERM")
        .filter(|v| v.exported)
        .and_then(|v| v.scalar().map(str::to_string))
}

/// A number from the environment (`COLUMNS`, `LINES`) when it is a positive integer.
pub fn env_number(ctx: &Ctx, name: &str) -> Option<i64> {
    ctx.vars
        .var(name)
        .filter(|v| v.exported)
        .and_then(|v| v.scalar())
        .and_then(|s| s.trim().parse::<i64>().ok())
        .filter(|&n| n > 0)
}

impl Term {
    /// A string capability without parameters.
    pub fn string(&self, cap: &str) -> Option<&'static [u8]> {
        self.strings
            .iter()
            .find(|(n, _)| *n == cap)
            .map(|(_, v)| *v)
    }

    /// How many parameters a capability takes.
    pub fn params(cap: &str) -> usize {
        match cap {
            "setaf" | "setab" => 1,
            "cup" => 2,
            _ => 0,
        }
    }

    /// A parameterised capability: `None` when the terminal lacks it; with no parameters
    /// given, the raw terminfo string (as tput prints it).
    pub fn with_params(&self, cap: &str, params: &[i64]) -> Option<Vec<u8>> {
        let p1 = params.first().copied().unwrap_or(0);
        let p2 = params.get(1).copied().unwrap_or(0);
        match cap {
            "setaf" | "setab" => {
                let (low, high, ext) = if cap == "setaf" {
                    ("3", "9", "38")
                } else {
                    ("4", "10", "48")
                };
                match self.palette {
                    Palette::None => None,
                    Palette::Eight if params.is_empty() => {
                        Some(format!("\x1b[{low}%p1%dm").into_bytes())
                    }
                    Palette::Eight => Some(format!("\x1b[{low}{p1}m").into_bytes()),
                    Palette::Full if params.is_empty() => Some(
                        format!(
                            "\x1b[%?%p1%{{8}}%<%t{low}%p1%d%e%p1%{{16}}%<%t{high}%p1%{{8}}%-%d%e{ext};5;%p1%d%;m"
                        )
                        .into_bytes(),
                    ),
                    Palette::Full if p1 < 8 => Some(format!("\x1b[{low}{p1}m").into_bytes()),
                    Palette::Full if p1 < 16 => {
                        Some(format!("\x1b[{high}{}m", p1 - 8).into_bytes())
                    }
                    Palette::Full => Some(format!("\x1b[{ext};5;{p1}m").into_bytes()),
                }
            }
            "cup" if self.cup => Some(if params.is_empty() {
                b"\x1b[%i%p1%d;%p2%dH".to_vec()
            } else {
                format!("\x1b[{};{}H", p1 + 1, p2 + 1).into_bytes()
            }),
            _ => None,
        }
    }
}
