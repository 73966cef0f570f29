//! The shell's options, in one place: `set -o` (and its one-letter flags, `$-`,
//! `$SHELLOPTS`, `[[ -o ]]`, `test -o`) and `shopt`, with bash 5.2's names, order and defaults
//! for a non-interactive shell. The options the interpreter acts on are fields of
//! [`Options`]; the others are kept (so that `set -o`, `shopt` and `$SHELLOPTS` answer what was
//! set) in two bit sets.

use super::state::{Options, ShellState};

/// `set -o` options in bash's listing order: name, one-letter flag, on by default.
const SET_OPTIONS: &[(&str, Option<u8>, bool)] = &[
    ("allexport", Some(b'a'), false),
    ("braceexpand", Some(b'B'), true),
    ("emacs", None, false),
    ("errexit", Some(b'e'), false),
    ("errtrace", Some(b'E'), false),
    ("functrace", Some(b'T'), false),
    ("hashall", Some(b'h'), true),
    ("histexpand", Some(b'H'), false),
    ("history", None, false),
    ("ignoreeof", None, false),
    ("interactive-comments", None, true),
    ("keyword", Some(b'k'), false),
    ("monitor", Some(b'm'), false),
    ("noclobber", Some(b'C'), false),
    ("noexec", Some(b'n'), false),
    ("noglob", Some(b'f'), false),
    ("nolog", None, false),
    ("notify", Some(b'b'), false),
    ("nounset", Some(b'u'), false),
    ("onecmd", Some(b't'), false),
    ("physical", Some(b'P'), false),
    ("pipefail", None, false),
    ("posix", None, false),
    ("privileged", Some(b'p'), false),
    ("verbose", Some(b'v'), false),
    ("vi", None, false),
    ("xtrace", Some(b'x'), false),
];

/// The order of the one-letter flags in `$-`.
const FLAG_ORDER: &[u8] = b"abefhkmnptuvxBCEHPT";

/// `shopt` options in bash's listing order, with their defaults.
const SHOPT_OPTIONS: &[(&str, bool)] = &[
    ("autocd", false),
    ("assoc_expand_once", false),
    ("cdable_vars", false),
    ("cdspell", false),
    ("checkhash", false),
    ("checkjobs", false),
    ("checkwinsize", true),
    ("cmdhist", true),
    ("compat31", false),
    ("compat32", false),
    ("compat40", false),
    ("compat41", false),
    ("compat42", false),
    ("compat43", false),
    ("compat44", false),
    ("complete_fullquote", true),
    ("direxpand", false),
    ("dirspell", false),
    ("dotglob", false),
    ("execfail", false),
    ("expand_aliases", false),
    ("extdebug", false),
    ("extglob", false),
    ("extquote", true),
    ("failglob", false),
    ("force_fignore", true),
    ("globasciiranges", true),
    ("globskipdots", true),
    ("globstar", false),
    ("gnu_errfmt", false),
    ("histappend", false),
    ("histreedit", false),
    ("histverify", false),
    ("hostcomplete", true),
    ("huponexit", false),
    ("inherit_errexit", false),
    ("interactive_comments", true),
    ("lastpipe", false),
    ("lithist", false),
    ("localvar_inherit", false),
    ("localvar_unset", false),
    ("login_shell", false),
    ("mailwarn", false),
    ("no_empty_cmd_completion", false),
    ("nocaseglob", false),
    ("nocasematch", false),
    ("noexpand_translation", false),
    ("nullglob", false),
    ("patsub_replacement", true),
    ("progcomp", true),
    ("progcomp_alias", false),
    ("promptvars", true),
    ("restricted_shell", false),
    ("shift_verbose", false),
    ("sourcepath", true),
    ("varredir_close", false),
    ("xpg_echo", false),
];

/// The field of a `set -o` option the interpreter acts on.
fn set_field<'o>(o: &'o mut Options, name: &str) -> Option<&'o mut bool> {
    Some(match name {
        "allexport" => &mut o.allexport,
        "errexit" => &mut o.errexit,
        "noclobber" => &mut o.noclobber,
        "noglob" => &mut o.noglob,
        "nounset" => &mut o.nounset,
        "pipefail" => &mut o.pipefail,
        "posix" => &mut o.posix,
        "xtrace" => &mut o.xtrace,
        _ => return None,
    })
}

/// The field of a `shopt` option the interpreter acts on.
fn shopt_field<'o>(o: &'o mut Options, name: &str) -> Option<&'o mut bool> {
    Some(match name {
        "dotglob" => &mut o.dotglob,
        "expand_aliases" => &mut o.expand_aliases,
        "extglob" => &mut o.extglob,
        "failglob" => &mut o.failglob,
        "globskipdots" => &mut o.globskipdots,
        "globstar" => &mut o.globstar,
        "inherit_errexit" => &mut o.inherit_errexit,
        "lastpipe" => &mut o.lastpipe,
        "nocasematch" => &mut o.nocasematch,
        "nullglob" => &mut o.nullglob,
        _ => return None,
    })
}

/// An option's value: its field, or its bit (set when it differs from the default).
fn value(
    o: &Options,
    i: usize,
    default: bool,
    field: for<'o> fn(&'o mut Options, &str) -> Option<&'o mut bool>,
    name: &str,
    bits: u64,
) -> bool {
    let mut copy = *o;
    match field(&mut copy, name) {
        Some(v) => *v,
        None => default ^ (bits >> i & 1 == 1),
    }
}

/// The `set -o` options with whether each is on, in bash's order.
pub(super) fn set_options(state: &ShellState) -> Vec<(&'static str, bool)> {
    let o = &state.opts;
    SET_OPTIONS
        .iter()
        .enumerate()
        .map(|(i, &(n, _, d))| (n, value(o, i, d, set_field, n, o.other_set)))
        .collect()
}

/// The `shopt` options with whether each is on, in bash's order.
pub(super) fn shopt_options(state: &ShellState) -> Vec<(&'static str, bool)> {
    let o = &state.opts;
    SHOPT_OPTIONS
        .iter()
        .enumerate()
        .map(|(i, &(n, d))| (n, value(o, i, d, shopt_field, n, o.other_shopt)))
        .collect()
}

/// Whether a `set -o` option is on (`[[ -o name ]]`, `test -o`).
pub(super) fn option_on(state: &ShellState, name: &str) -> bool {
    set_options(state).iter().any(|(n, on)| *n == name && *on)
}

/// Sets a `set -o` option by name; false when there is no such option.
pub(super) fn set_option(state: &mut ShellState, name: &str, on: bool) -> bool {
    let Some(i) = SET_OPTIONS.iter().position(|(n, _, _)| *n == name) else {
        return false;
    };
    let o = &mut state.opts;
    if let Some(v) = set_field(o, name) {
        *v = on;
    } else {
        let default = SET_OPTIONS.get(i).is_some_and(|t| t.2);
        o.other_set = o.other_set & !(1 << i) | u64::from(on != default) << i;
    }
    if name == "posix" {
        // bash keeps `POSIXLY_CORRECT` in step with the option, and a POSIX shell expands
        // aliases (turning the mode off turns that off too).
        state.opts.expand_aliases = on;
        if on {
            state.vars.set("POSIXLY_CORRECT", "y".into(), false);
        } else {
            state.vars.unset("POSIXLY_CORRECT");
        }
    }
    true
}

/// Sets a `shopt` option by name; false when there is no such option.
pub(super) fn set_shopt(state: &mut ShellState, name: &str, on: bool) -> bool {
    let Some(i) = SHOPT_OPTIONS.iter().position(|(n, _)| *n == name) else {
        return false;
    };
    let o = &mut state.opts;
    if let Some(v) = shopt_field(o, name) {
        *v = on;
    } else {
        let default = SHOPT_OPTIONS.get(i).is_some_and(|t| t.1);
        o.other_shopt = o.other_shopt & !(1 << i) | u64::from(on != default) << i;
    }
    true
}

/// A one-letter `set` flag's option name.
pub(super) fn flag_option(c: u8) -> Option<&'static str> {
    SET_OPTIONS
        .iter()
        .find(|(_, f, _)| *f == Some(c))
        .map(|(n, _, _)| *n)
}

/// `$-`: the one-letter flags that are on, in bash's order, then how the shell reads its
/// commands (`c`, `s`).
pub(super) fn flags(state: &ShellState) -> String {
    let on = set_options(state);
    let mut f: String = FLAG_ORDER
        .iter()
        .filter(|&&c| flag_option(c).is_some_and(|name| on.iter().any(|(n, v)| *n == name && *v)))
        .map(|&c| char::from(c))
        .collect();
    f.push_str(state.reads);
    f
}

/// `$SHELLOPTS`: the `set -o` options that are on, joined by `:`.
pub(super) fn shellopts(state: &ShellState) -> String {
    set_options(state)
        .into_iter()
        .filter(|(_, on)| *on)
        .map(|(n, _)| n)
        .collect::<Vec<_>>()
        .join(":")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fresh() -> ShellState {
        ShellState::new(
            std::path::Path::new("/"),
            &trumansh_commands::Identity::default(),
        )
    }

    #[test]
    fn defaults_are_bash_s() {
        let mut s = fresh();
        assert_eq!(shellopts(&s), "braceexpand:hashall:interactive-comments");
        assert_eq!(flags(&s), "hBs");
        assert!(set_option(&mut s, "errexit", true) && set_option(&mut s, "vi", true));
        assert!(set_option(&mut s, "hashall", false));
        assert_eq!(shellopts(&s), "braceexpand:errexit:interactive-comments:vi");
        assert_eq!(flags(&s), "eBs");
        assert!(s.opts.errexit && option_on(&s, "vi") && !option_on(&s, "hashall"));
        assert!(!set_option(&mut s, "nosuch", true));
        assert_eq!(flag_option(b'C'), Some("noclobber"));
        assert!(set_shopt(&mut s, "cmdhist", false) && set_shopt(&mut s, "extglob", true));
        let sh = shopt_options(&s);
        assert!(sh.contains(&("cmdhist", false)) && sh.contains(&("extglob", true)));
        assert!(sh.contains(&("checkwinsize", true)) && s.opts.extglob);
        assert!(set_option(&mut s, "posix", true));
        assert_eq!(s.vars.get("POSIXLY_CORRECT"), Some("y"));
    }
}
