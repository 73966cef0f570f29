//! bash's names: what a variable name may be (`legal_identifier`) and the diagnostic of the
//! builtins that refuse one (`export`, `unset`; later `declare`, `local`, `read`).

/// A shell identifier: `[A-Za-z_][A-Za-z0-9_]*`.
pub fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// What `read` and `printf -v` may assign: an identifier, or an array element `name[sub]`
/// (bash's `valid_array_reference`: a non-empty subscript up to a final `]`).
pub fn is_assignable(s: &str) -> bool {
    match s.split_once('[') {
        None => is_identifier(s),
        Some((name, rest)) => is_identifier(name) && rest.len() > 1 && rest.ends_with(']'),
    }
}

/// The ``name: `x': not a valid identifier`` diagnostic of `export` and `unset`.
pub fn not_identifier(builtin: &str, word: &str) -> String {
    format!("{builtin}: `{word}': not a valid identifier\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers() {
        assert!(is_identifier("_a1"));
        assert!(is_identifier("A"));
        assert!(!is_identifier("1a"));
        assert!(!is_identifier("a-b"));
        assert!(!is_identifier(""));
        assert!(is_assignable("a[1]") && is_assignable("h[k k]") && is_assignable("x"));
        assert!(!is_assignable("a[]") && !is_assignable("a[") && !is_assignable("1[2]"));
        assert_eq!(
            not_identifier("unset", "1a"),
            "unset: `1a': not a valid identifier\n"
        );
    }
}
