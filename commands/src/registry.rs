//! The command table's machinery: `commands!` turns one row per command (in `lib.rs`) into
//! [`CommandName`](crate::CommandName) and everything that used to be a hand-kept parallel
//! list: `ALL`, `as_str`, `FromStr`, `Display`, the dispatch, the builtin/program flags, the
//! failure status and the `help` topics. A command can no longer be half-registered: a row is
//! the whole registration, and the tests below check the table's invariants.

/// How bash finds a command: a builtin only (`cd`: no `/usr/bin/cd`), a program only (GNU
/// coreutils in `/usr/bin`), or both (`echo`: the builtin wins, `which` still finds the
/// program).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Builtin,
    Program,
    Both,
}

/// A builtin's entry for `help`: the synopsis after `NAME: usage: ` and the full text.
#[derive(Clone, Copy)]
pub struct HelpTopic {
    pub usage: &'static str,
    pub help: fn() -> String,
}

/// The help topic of one row: builtins have one (their module's `USAGE` and `help()`),
/// programs do not.
macro_rules! help_topic {
    (Program, $($module:ident)::+) => {
        None
    };
    ($kind:ident, $($module:ident)::+) => {
        Some($crate::registry::HelpTopic {
            usage: $crate::$($module)::+::USAGE,
            help: $crate::$($module)::+::help,
        })
    };
}

/// The status of a failure the command reports itself: GNU's `EXIT_FAILURE` (1), or the
/// utility's own "trouble" status such as grep's, sort's and ls's 2 (also the status of their
/// usage errors). A bash builtin's usage error is always 2 (`EX_USAGE`).
macro_rules! failure_status {
    ($kind:ident, $status:literal) => {
        $status
    };
    ($kind:ident) => {
        1
    };
}

/// One row per command: `Variant "name" family::module Kind[(failure status)];`, in name
/// order. The module provides `run(&[OsString], &Ctx)`; builtins also `USAGE` and `help()`.
macro_rules! commands {
    ($( $variant:ident $name:literal $($module:ident)::+ $kind:ident $(($status:literal))? ; )*) => {
        /// Every command trumansh knows. Anything else is `command not found` (127).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum CommandName {
            $($variant,)*
        }

        impl CommandName {
            /// All commands, in name order.
            pub const ALL: &'static [CommandName] = &[$(CommandName::$variant,)*];

            /// The name the agent types.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(CommandName::$variant => $name,)*
                }
            }

            /// Builtin, program or both.
            pub fn kind(self) -> $crate::registry::Kind {
                match self {
                    $(CommandName::$variant => $crate::registry::Kind::$kind,)*
                }
            }

            /// The status of the command's own failures and usage errors.
            pub fn failure_status(self) -> i32 {
                match self {
                    $(CommandName::$variant => failure_status!($kind $(, $status)?),)*
                }
            }

            /// The builtin's entry for `help`; `None` for programs.
            pub fn help_topic(self) -> Option<$crate::registry::HelpTopic> {
                match self {
                    $(CommandName::$variant => help_topic!($kind, $($module)::+),)*
                }
            }

            /// The handler.
            fn handler(self) -> $crate::Handler {
                match self {
                    $(CommandName::$variant => $crate::$($module)::+::run,)*
                }
            }
        }
    };
}

impl crate::CommandName {
    /// Whether bash implements it as a builtin (`type` says `is a shell builtin`; errors get
    /// the shell's `bash: ` prefix).
    pub fn is_builtin(self) -> bool {
        self.kind() != Kind::Program
    }

    /// Where the command appears to be installed, for `which`/`type`: every emulated
    /// utility looks like a GNU one in `/usr/bin`. `None` for builtins with no program of
    /// the same name (`cd`, `export`, ...).
    pub fn program_path(self) -> Option<String> {
        (self.kind() != Kind::Builtin).then(|| format!("/usr/bin/{}", self.as_str()))
    }
}

impl std::str::FromStr for crate::CommandName {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        // Looked up for every command run: a hash map built once, not a scan of the table.
        static BY_NAME: std::sync::OnceLock<hashbrown::HashMap<&'static str, crate::CommandName>> =
            std::sync::OnceLock::new();
        BY_NAME
            .get_or_init(|| Self::ALL.iter().map(|&c| (c.as_str(), c)).collect())
            .get(s)
            .copied()
            .ok_or(())
    }
}

impl std::fmt::Display for crate::CommandName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::Kind;
    use crate::CommandName;

    #[test]
    fn names_are_unique_and_in_order() {
        let names: Vec<&str> = CommandName::ALL.iter().map(|c| c.as_str()).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(names, sorted);
        // The enum's order (derived `Ord`) is the name order too.
        assert!(CommandName::ALL.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn from_str_round_trips() {
        for &c in CommandName::ALL {
            assert_eq!(c.as_str().parse::<CommandName>(), Ok(c));
            assert_eq!(c.to_string(), c.as_str());
        }
        assert_eq!("nope".parse::<CommandName>(), Err(()));
    }

    #[test]
    fn builtins_have_help_topics_and_programs_do_not() {
        for &c in CommandName::ALL {
            assert_eq!(c.help_topic().is_some(), c.is_builtin(), "{c}");
            if let Some(t) = c.help_topic() {
                // `help NAME` starts with `NAME: USAGE`.
                assert!(
                    (t.help)().starts_with(&format!("{c}: {}\n", t.usage)),
                    "{c}"
                );
            }
        }
    }

    #[test]
    fn program_paths_follow_the_kind() {
        for &c in CommandName::ALL {
            match c.kind() {
                Kind::Builtin => assert_eq!(c.program_path(), None, "{c}"),
                Kind::Program | Kind::Both => {
                    assert_eq!(c.program_path(), Some(format!("/usr/bin/{c}")));
                }
            }
        }
        assert_eq!(CommandName::Cd.program_path(), None);
        assert_eq!(
            CommandName::Echo.program_path().as_deref(),
            Some("/usr/bin/echo")
        );
    }
}
