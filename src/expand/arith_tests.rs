//! Arithmetic tests. Every expectation in [`CASES`] was produced by bash 5.2 (`LC_ALL=C`): the
//! ignored test `table_matches_bash` replays each case in the installed bash and prints the
//! line bash would give it where the table differs (`cargo test --lib arith -- --ignored`);
//! `fuzz_against_bash` compares random expressions the same way.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::{ArithEnv, ArithError, ArithErrorKind, MAX_NEST, Subscript, eval};

/// The shell's variables, as bash keeps them for arithmetic.
#[derive(Default)]
struct TestEnv {
    scalars: BTreeMap<String, String>,
    arrays: BTreeMap<String, BTreeMap<i64, String>>,
    assocs: BTreeMap<String, BTreeMap<String, String>>,
    readonly: BTreeSet<String>,
    warnings: Vec<String>,
    gets: usize,
}

impl TestEnv {
    /// `x=V; @a=1,2,3; %h=k:v,k2:v2; !x=V` (`!` makes it readonly; `%h=` declares it empty).
    fn new(setup: &str) -> Self {
        let mut env = TestEnv::default();
        for item in setup.split(';').filter(|s| !s.is_empty()) {
            let (readonly, item) = match item.strip_prefix('!') {
                Some(rest) => (true, rest),
                None => (false, item),
            };
            let (name, value) = item.split_once('=').expect("name=value");
            let name = if let Some(name) = name.strip_prefix('@') {
                let elems = value.split(',').filter(|v| !v.is_empty());
                env.arrays.insert(
                    name.to_string(),
                    (0..).zip(elems.map(str::to_string)).collect(),
                );
                name
            } else if let Some(name) = name.strip_prefix('%') {
                let elems = value.split(',').filter(|v| !v.is_empty());
                let map = elems
                    .map(|kv| {
                        let (k, v) = kv.split_once(':').expect("key:value");
                        (k.to_string(), v.to_string())
                    })
                    .collect();
                env.assocs.insert(name.to_string(), map);
                name
            } else {
                env.scalars.insert(name.to_string(), value.to_string());
                name
            };
            if readonly {
                env.readonly.insert(name.to_string());
            }
        }
        env
    }

    /// The variables, as `bash_dump` prints bash's.
    fn dump(&self) -> String {
        let mut parts = BTreeMap::new();
        for (n, v) in &self.scalars {
            parts.insert(n.clone(), format!("{n}={v}"));
        }
        for (n, a) in &self.arrays {
            let elems: Vec<String> = a.iter().map(|(i, v)| format!("{i}:{v}")).collect();
            parts.insert(n.clone(), format!("{n}=({})", elems.join(" ")));
        }
        for (n, a) in &self.assocs {
            let elems: Vec<String> = a.iter().map(|(k, v)| format!("{k}:{v}")).collect();
            parts.insert(n.clone(), format!("{n}=[{}]", elems.join(" ")));
        }
        let names: Vec<&str> = DUMP_NAMES.split(' ').collect();
        parts.retain(|name, _| names.contains(&name.as_str()));
        parts.into_values().collect::<Vec<_>>().join(" ")
    }

    /// Bash's negative index: counted back from past the last element.
    fn resolve(&self, name: &str, i: i64) -> Option<i64> {
        if i >= 0 {
            return Some(i);
        }
        let max = self.arrays.get(name)?.keys().next_back()?;
        let r = max + 1 + i;
        (r >= 0).then_some(r)
    }
}

impl ArithEnv for TestEnv {
    fn get(&mut self, name: &str, sub: Subscript<'_>) -> Option<String> {
        self.gets += 1;
        if let Some(a) = self.assocs.get(name) {
            let key = match sub {
                Subscript::Key(k) => k.to_string(),
                Subscript::None => "0".to_string(),
                Subscript::Index(i) => i.to_string(),
            };
            return a.get(&key).cloned();
        }
        match sub {
            Subscript::None => self
                .scalars
                .get(name)
                .or_else(|| self.arrays.get(name).and_then(|a| a.get(&0)))
                .cloned(),
            Subscript::Index(i) if i < 0 => {
                let Some(r) = self.resolve(name, i) else {
                    self.warnings.push(format!("{name}: bad array subscript"));
                    return None;
                };
                self.arrays.get(name).and_then(|a| a.get(&r)).cloned()
            }
            Subscript::Index(i) => match self.scalars.get(name) {
                Some(v) => (i == 0).then(|| v.clone()),
                None => self.arrays.get(name).and_then(|a| a.get(&i)).cloned(),
            },
            Subscript::Key(_) => None,
        }
    }

    fn set(&mut self, name: &str, sub: Subscript<'_>, value: i64) -> Result<(), String> {
        if self.readonly.contains(name) {
            return Err(format!("{name}: readonly variable"));
        }
        let value = value.to_string();
        if let Some(a) = self.assocs.get_mut(name) {
            let key = match sub {
                Subscript::Key(k) => k.to_string(),
                Subscript::None => "0".to_string(),
                Subscript::Index(i) => i.to_string(),
            };
            a.insert(key, value);
            return Ok(());
        }
        match sub {
            Subscript::None => {
                if let Some(a) = self.arrays.get_mut(name) {
                    a.insert(0, value);
                } else {
                    self.scalars.insert(name.to_string(), value);
                }
            }
            Subscript::Index(i) => {
                let Some(r) = self.resolve(name, i) else {
                    self.warnings
                        .push(format!("{name}[{i}]: bad array subscript"));
                    return Ok(());
                };
                let mut array = self.arrays.remove(name).unwrap_or_default();
                if let Some(old) = self.scalars.remove(name) {
                    array.insert(0, old);
                }
                array.insert(r, value);
                self.arrays.insert(name.to_string(), array);
            }
            Subscript::Key(_) => unreachable!("a key for an indexed array"),
        }
        Ok(())
    }

    fn is_assoc(&self, name: &str) -> bool {
        self.assocs.contains_key(name)
    }

    fn warn(&mut self, warning: &ArithError) {
        self.warnings.push(warning.message.clone());
    }
}

/// What one evaluation gave: the value or the error's text, the variables after, the
/// warnings.
#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    result: String,
    after: String,
    warnings: String,
}

fn run_ours(setup: &str, expr: &str) -> Outcome {
    let mut env = TestEnv::new(setup);
    let result = match eval(expr, &mut env) {
        Ok(v) => v.to_string(),
        Err(e) => e.message,
    };
    Outcome {
        result,
        after: env.dump(),
        warnings: env.warnings.join("\n"),
    }
}

/// `(setup, expression, value or error, variables after, warnings)`, all from bash.
type Case = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
);

#[rustfmt::skip]
const CASES: &[Case] = &[
    ("", "1+2", "3", "", ""),
    ("", "", "0", "", ""),
    ("", "   ", "0", "", ""),
    ("", " \t", "0", "", ""),
    ("", "1 + 2 * 3", "7", "", ""),
    ("", "(1 + 2) * 3", "9", "", ""),
    ("", "2 - 3 - 4", "-5", "", ""),
    ("", "2 ** 3 ** 2", "512", "", ""),
    ("", "-2 ** 2", "4", "", ""),
    ("", "2 ** 0", "1", "", ""),
    ("", "0 ** 0", "1", "", ""),
    ("", "2 ** -1", "2 ** -1: exponent less than 0 (error token is \"1\")", "", ""),
    ("", "2**-1+3", "2**-1+3: exponent less than 0 (error token is \"+3\")", "", ""),
    ("", "2**(1-2)", "2**(1-2): exponent less than 0 (error token is \")\")", "", ""),
    ("", "0 && 2**-1", "0 && 2**-1: exponent less than 0 (error token is \"1\")", "", ""),
    ("", "2 ** 62", "4611686018427387904", "", ""),
    ("", "2 ** 63", "-9223372036854775808", "", ""),
    ("", "2 ** 64", "0", "", ""),
    ("", "3 ** 40", "-6289078614652622815", "", ""),
    ("", "(-1) ** 63", "-1", "", ""),
    ("", "9223372036854775807 + 1", "-9223372036854775808", "", ""),
    ("", "-9223372036854775808", "-9223372036854775808", "", ""),
    ("", "9223372036854775808", "-9223372036854775808", "", ""),
    ("", "18446744073709551617", "1", "", ""),
    ("", "-9223372036854775808 / -1", "-9223372036854775808", "", ""),
    ("", "-9223372036854775808 % -1", "0", "", ""),
    ("", "x = -9223372036854775807-1, x /= -1", "-9223372036854775808", "x=-9223372036854775808", ""),
    ("", "x = -9223372036854775807-1, x %= -1", "0", "x=0", ""),
    ("", "x = -9223372036854775807-1, x *= -1", "-9223372036854775808", "x=-9223372036854775808", ""),
    ("", "7 / 2", "3", "", ""),
    ("", "-7 / 2", "-3", "", ""),
    ("", "7 % -3", "1", "", ""),
    ("", "-7 % 3", "-1", "", ""),
    ("", "1/0", "1/0: division by 0 (error token is \"0\")", "", ""),
    ("", "1 / 0", "1 / 0: division by 0 (error token is \"0\")", "", ""),
    ("", "1 / (0) + 3", "1 / (0) + 3: division by 0 (error token is \"(0) + 3\")", "", ""),
    ("", "1/0 + 3", "1/0 + 3: division by 0 (error token is \"0 + 3\")", "", ""),
    ("", "1 %   0", "1 %   0: division by 0 (error token is \"0\")", "", ""),
    ("", "5 % (3-3)", "5 % (3-3): division by 0 (error token is \"(3-3)\")", "", ""),
    ("", "x /= 0", "x /= 0: division by 0 (error token is \"0\")", "", ""),
    ("", "x %= 0", "x %= 0: division by 0 (error token is \"0\")", "", ""),
    ("", "0 && 1/0", "0", "", ""),
    ("", "1 || 1/0", "1", "", ""),
    ("", "0 && (x /= 0)", "0", "", ""),
    ("", "1 || (x = 5)", "1", "", ""),
    ("", "0 && (x = 5)", "0", "", ""),
    ("", "0 || (x = 5)", "1", "x=5", ""),
    ("", "0 ? 1/0 : 2", "2", "", ""),
    ("", "1 ? 2 : 1/0", "2", "", ""),
    ("", "1 ? 2 : (x = 3)", "2", "", ""),
    ("", "0 ? (x = 3) : 4", "4", "", ""),
    ("", "1 << 3", "8", "", ""),
    ("", "1 << 63", "-9223372036854775808", "", ""),
    ("", "1 << 64", "1", "", ""),
    ("", "1 << -1", "-9223372036854775808", "", ""),
    ("", "-16 >> 2", "-4", "", ""),
    ("", "-1 >> 70", "-1", "", ""),
    ("", "x = 1, x <<= 65", "2", "x=2", ""),
    ("", "5 & 3", "1", "", ""),
    ("", "5 | 3", "7", "", ""),
    ("", "5 ^ 3", "6", "", ""),
    ("", "~5", "-6", "", ""),
    ("", "~-1", "0", "", ""),
    ("", "!5", "0", "", ""),
    ("", "!0", "1", "", ""),
    ("", "!!7", "1", "", ""),
    ("", "- -5", "5", "", ""),
    ("", "-+-+5", "5", "", ""),
    ("", "+5", "5", "", ""),
    ("", "--5", "5", "", ""),
    ("", "++5", "5", "", ""),
    ("", "1++2", "3", "", ""),
    ("", "1 ++ 2", "3", "", ""),
    ("", "1--2", "3", "", ""),
    ("", "1++", "1++: syntax error: operand expected (error token is \"+\")", "", ""),
    ("", "1 < 2", "1", "", ""),
    ("", "2 <= 2", "1", "", ""),
    ("", "3 > 4", "0", "", ""),
    ("", "4 >= 5", "0", "", ""),
    ("", "1 == 1", "1", "", ""),
    ("", "1 != 1", "0", "", ""),
    ("", "1 < 2 == 1", "1", "", ""),
    ("", "1 + 2 << 1", "6", "", ""),
    ("", "1 | 2 ^ 3 & 4", "3", "", ""),
    ("", "1 && 2 || 0", "1", "", ""),
    ("", "0 || 0 && 1", "0", "", ""),
    ("", "1 ? 2 : 3 ? 4 : 5", "2", "", ""),
    ("", "0 ? 2 : 0 ? 4 : 5", "5", "", ""),
    ("", "0 ? 2 : 3 ? 4 : 5", "4", "", ""),
    ("", "1 ? 0 ? 6 : 7 : 8", "7", "", ""),
    ("", "1 ? 2, 3 : 4", "3", "", ""),
    ("", "x = 1 ? 2 : 3", "2", "x=2", ""),
    ("", "1, 2, 3", "3", "", ""),
    ("", "x = 1, y = x + 1, x + y", "3", "x=1 y=2", ""),
    ("", "(x = 2) + x", "4", "x=2", ""),
    ("", "x = y = 4", "4", "x=4 y=4", ""),
    ("", "x += y += 2", "2", "x=2 y=2", ""),
    ("", "010", "8", "", ""),
    ("", "0x1F", "31", "", ""),
    ("", "0XfF", "255", "", ""),
    ("", "0x", "0", "", ""),
    ("", "08", "08: value too great for base (error token is \"08\")", "", ""),
    ("", "1 + 08 + 2", "1 + 08: value too great for base (error token is \"08\")", "", ""),
    ("", "0#1", "0#1: invalid number (error token is \"0#1\")", "", ""),
    ("", "1#1", "1#1: invalid arithmetic base (error token is \"1#1\")", "", ""),
    ("", "2#", "2#: invalid integer constant (error token is \"2#\")", "", ""),
    ("", "2#101", "5", "", ""),
    ("", "65#1", "65#1: invalid arithmetic base (error token is \"65#1\")", "", ""),
    ("", "64#_@", "4094", "", ""),
    ("", "64#zZ", "2301", "", ""),
    ("", "37#Z", "37#Z: value too great for base (error token is \"37#Z\")", "", ""),
    ("", "36#Zz", "1295", "", ""),
    ("", "16#ff", "255", "", ""),
    ("", "10#012", "12", "", ""),
    ("", "1a", "1a: value too great for base (error token is \"1a\")", "", ""),
    ("", "0x1g", "0x1g: value too great for base (error token is \"0x1g\")", "", ""),
    ("", "2#1#1", "2#1#1: invalid number (error token is \"2#1#1\")", "", ""),
    ("", "9#9", "9#9: value too great for base (error token is \"9#9\")", "", ""),
    ("", "1 1", "1 1: syntax error in expression (error token is \"1\")", "", ""),
    ("", "a b", "a b: syntax error in expression (error token is \"b\")", "", ""),
    ("", "x y 08", "x y 08: value too great for base (error token is \"08\")", "", ""),
    ("", "1 +", "1 +: syntax error: operand expected (error token is \"+\")", "", ""),
    ("", "1 + ", "1 + : syntax error: operand expected (error token is \"+ \")", "", ""),
    ("", "+", "+: syntax error: operand expected (error token is \"+\")", "", ""),
    ("", "(1", "(1: missing `)' (error token is \"1\")", "", ""),
    ("", "  ( 1 ", "( 1 : missing `)' (error token is \"1 \")", "", ""),
    ("", "1)", "1): syntax error in expression (error token is \")\")", "", ""),
    ("", "1 ) )", "1 ) ): syntax error in expression (error token is \") )\")", "", ""),
    ("", "()", "(): syntax error: operand expected (error token is \")\")", "", ""),
    ("", "1 ? 2", "1 ? 2: `:' expected for conditional expression (error token is \"2\")", "", ""),
    ("", "1 ? : 2", "1 ? : 2: expression expected (error token is \": 2\")", "", ""),
    ("", "1 ? 2 :", "1 ? 2 :: expression expected (error token is \":\")", "", ""),
    ("", "1 ?", "1 ?: expression expected (error token is \"?\")", "", ""),
    ("", "x=", "x=: syntax error: operand expected (error token is \"=\")", "", ""),
    ("", "5=3", "5=3: attempted assignment to non-variable (error token is \"=3\")", "", ""),
    ("", "(x) = 3", "(x) = 3: attempted assignment to non-variable (error token is \"= 3\")", "", ""),
    ("", "x + 1 = 3", "x + 1 = 3: attempted assignment to non-variable (error token is \"= 3\")", "", ""),
    ("", "-x = 3", "-x = 3: attempted assignment to non-variable (error token is \"= 3\")", "", ""),
    ("", "x++ = 3", "x++ = 3: attempted assignment to non-variable (error token is \"= 3\")", "x=1", ""),
    ("", "x = 1 = 2", "x = 1 = 2: attempted assignment to non-variable (error token is \"= 2\")", "", ""),
    ("", "x $", "x $: syntax error: invalid arithmetic operator (error token is \"$\")", "", ""),
    ("", "$", "$: syntax error: operand expected (error token is \"$\")", "", ""),
    ("", "1 $", "1 $: syntax error: invalid arithmetic operator (error token is \"$\")", "", ""),
    ("", "1'", "1': syntax error: invalid arithmetic operator (error token is \"'\")", "", ""),
    ("", "\"1\"", "\"1\": syntax error: operand expected (error token is \"\"1\"\")", "", ""),
    ("", "1 # 2", "1 # 2: syntax error: invalid arithmetic operator (error token is \"# 2\")", "", ""),
    ("", "a[1", "a[1: bad array subscript (error token is \"a[1\")", "", ""),
    ("", " a [1]", "a [1]: syntax error: invalid arithmetic operator (error token is \"[1]\")", "", ""),
    ("", "x++ ++", "x++ ++: syntax error: operand expected (error token is \"+\")", "x=1", ""),
    ("", "1 <", "1 <: syntax error: operand expected (error token is \"<\")", "", ""),
    ("", "1 & & 2", "1 & & 2: syntax error: operand expected (error token is \"& 2\")", "", ""),
    ("", "1 ==", "1 ==: syntax error: operand expected (error token is \"==\")", "", ""),
    ("", "=", "=: syntax error: operand expected (error token is \"=\")", "", ""),
    ("", ",", ",: syntax error: operand expected (error token is \",\")", "", ""),
    ("", "1,", "1,: syntax error: operand expected (error token is \",\")", "", ""),
    ("", ",1", ",1: syntax error: operand expected (error token is \",1\")", "", ""),
    ("", "1 +\n+ 2", "3", "", ""),
    ("", "1\n+", "1\n+: syntax error: operand expected (error token is \"+\")", "", ""),
    ("", "1\t+", "1\t+: syntax error: operand expected (error token is \"+\")", "", ""),
    ("", "1 /\n0", "1 /\n0: division by 0 (error token is \"\n0\")", "", ""),
    ("", "1 /\t0", "1 /\t0: division by 0 (error token is \"0\")", "", ""),
    ("", "(1)(2)", "(1)(2): syntax error in expression (error token is \"(2)\")", "", ""),
    ("", "i = 0, i++, i++, i", "2", "i=2", ""),
    ("", "i = 10, i -= 2, i /= 3, i", "2", "i=2", ""),
    ("", "n = 5, n *= n + 1", "30", "n=30", ""),
    ("", "x++", "0", "x=1", ""),
    ("", "x--", "0", "x=-1", ""),
    ("", "++x", "1", "x=1", ""),
    ("", "--x", "-1", "x=-1", ""),
    ("", "++ x", "1", "x=1", ""),
    ("", "x ++", "0", "x=1", ""),
    ("", "-x++", "0", "x=1", ""),
    ("", "b[1 + 1] = 4", "4", "b=(2:4)", ""),
    ("", "1 + é", "1 + é: syntax error: operand expected (error token is \"é\")", "", ""),
    ("", "x = 3 , (y = x * 2) , x + y", "9", "x=3 y=6", ""),
    ("x=5", "x", "5", "x=5", ""),
    ("x=5", "x + 1", "6", "x=5", ""),
    ("x=5", "x++ + x", "11", "x=6", ""),
    ("x=5", "++x + x", "12", "x=6", ""),
    ("x=5", "x-- - --x", "2", "x=3", ""),
    ("x=5", "x++", "5", "x=6", ""),
    ("x=5", "x--", "5", "x=4", ""),
    ("x=5", "++x", "6", "x=6", ""),
    ("x=5", "--x", "4", "x=4", ""),
    ("x=5", "x = 7", "7", "x=7", ""),
    ("x=5", "x += 5", "10", "x=10", ""),
    ("x=5", "x -= 5", "0", "x=0", ""),
    ("x=5", "x *= 5", "25", "x=25", ""),
    ("x=5", "x /= 2", "2", "x=2", ""),
    ("x=5", "x %= 3", "2", "x=2", ""),
    ("x=5", "x <<= 2", "20", "x=20", ""),
    ("x=5", "x >>= 1", "2", "x=2", ""),
    ("x=5", "x &= 6", "4", "x=4", ""),
    ("x=5", "x |= 8", "13", "x=13", ""),
    ("x=5", "x ^= 3", "6", "x=6", ""),
    ("x=5", "++x = 9", "++x = 9: attempted assignment to non-variable (error token is \"= 9\")", "x=6", ""),
    ("x=5", "++x++", "++x++: ++: assignment requires lvalue (error token is \"++\")", "x=6", ""),
    ("x=5", "--x--", "--x--: --: assignment requires lvalue (error token is \"--\")", "x=4", ""),
    ("x=5", "++x = 3", "++x = 3: attempted assignment to non-variable (error token is \"= 3\")", "x=6", ""),
    ("x=5", "x++ + ++x", "12", "x=7", ""),
    ("x=5", "x = x + 1", "6", "x=6", ""),
    ("x=5", "(x)++", "(x)++: syntax error: operand expected (error token is \"+\")", "x=5", ""),
    ("x=1 +", "x = 5", "5", "x=5", ""),
    ("x=1 +", "x + 1", "1 +: syntax error: operand expected (error token is \"+\")", "x=1 +", ""),
    ("x=1 +", "x += 5", "1 +: syntax error: operand expected (error token is \"+\")", "x=1 +", ""),
    ("x=1 +", "x++", "1 +: syntax error: operand expected (error token is \"+\")", "x=1 +", ""),
    ("x=1 +", "0 && x", "0", "x=1 +", ""),
    ("x=1 +", "1 || x", "1", "x=1 +", ""),
    ("x=2*3", "x * 2", "12", "x=2*3", ""),
    ("x=2+3", "x * 2", "10", "x=2+3", ""),
    ("x= ", "x + 1", "1", "x= ", ""),
    ("x=", "x + 1", "1", "x=", ""),
    ("x=y;y=z;z=7", "x", "7", "x=y y=z z=7", ""),
    ("x=y;y=z;z=7", "x * y", "49", "x=y y=z z=7", ""),
    ("x=y+", "1 + x", "y+: syntax error: operand expected (error token is \"+\")", "x=y+", ""),
    ("x=(1", "1 + x", "(1: missing `)' (error token is \"1\")", "x=(1", ""),
    ("x=1/0", "1 + x", "1/0: division by 0 (error token is \"0\")", "x=1/0", ""),
    ("x=1/0", "0 && x", "0", "x=1/0", ""),
    ("x= 1/0", "1 + x", "1/0: division by 0 (error token is \"0\")", "x= 1/0", ""),
    ("x=  1 + ", "1 + x", "1 + : syntax error: operand expected (error token is \"+ \")", "x=  1 + ", ""),
    ("x=08 + 1", "1 + x", "08: value too great for base (error token is \"08\")", "x=08 + 1", ""),
    ("x=a;a=b;b=1/0", "1 + x", "1/0: division by 0 (error token is \"0\")", "a=b b=1/0 x=a", ""),
    ("x=x", "x", "x: expression recursion level exceeded (error token is \"x\")", "x=x", ""),
    ("x=x", "x = 3", "3", "x=3", ""),
    ("x=x", "x + 1", "x: expression recursion level exceeded (error token is \"x\")", "x=x", ""),
    ("x=x+1", "x", "x+1: expression recursion level exceeded (error token is \"x+1\")", "x=x+1", ""),
    ("x=y;y=x", "5 + x", "y: expression recursion level exceeded (error token is \"y\")", "x=y y=x", ""),
    ("x=(x)", "x", "(x): expression recursion level exceeded (error token is \"x)\")", "x=(x)", ""),
    ("x=a[x]", "x", "a[x]: expression recursion level exceeded (error token is \"a[x]\")", "x=a[x]", ""),
    ("@a=1,2;x=a[x]", "x", "a[x]: expression recursion level exceeded (error token is \"a[x]\")", "a=(0:1 1:2) x=a[x]", ""),
    ("x= 010", "x", "8", "x= 010", ""),
    ("x=0x10", "x + 1", "17", "x=0x10", ""),
    ("x=-3", "x * x", "9", "x=-3", ""),
    ("x=-3", "-x", "3", "x=-3", ""),
    ("x=y=4", "x", "4", "x=y=4 y=4", ""),
    ("x=y=4", "y", "0", "x=y=4", ""),
    ("x=y++", "x + x", "1", "x=y++ y=2", ""),
    ("x=y++", "x", "0", "x=y++ y=1", ""),
    ("x=3;y=x+1", "y * 2", "8", "x=3 y=x+1", ""),
    ("x=3;y=x+1", "y++", "4", "x=3 y=5", ""),
    ("x=1,2", "x", "2", "x=1,2", ""),
    ("x=1 ? 2 : 3", "x + 1", "3", "x=1 ? 2 : 3", ""),
    ("x=\n 5", "x", "5", "x=\n 5", ""),
    ("x=abc", "x", "0", "x=abc", ""),
    ("@a=1,2,3", "a[1]", "2", "a=(0:1 1:2 2:3)", ""),
    ("@a=1,2,3", "a[-1]", "3", "a=(0:1 1:2 2:3)", ""),
    ("@a=1,2,3", "a[-5] + 1", "1", "a=(0:1 1:2 2:3)", "a: bad array subscript"),
    ("@a=1,2,3", "a[-3] + 1", "2", "a=(0:1 1:2 2:3)", ""),
    ("@a=1,2,3", "a[]", "0", "a=(0:1 1:2 2:3)", "a[]: bad array subscript\na[]: bad array subscript"),
    ("@a=1,2,3", "a[ ]", "1", "a=(0:1 1:2 2:3)", ""),
    ("@a=1,2,3", "a[@]", "0", "a=(0:1 1:2 2:3)", "a[@]: bad array subscript"),
    ("@a=1,2,3", "a[*] + 1", "1", "a=(0:1 1:2 2:3)", "a[*]: bad array subscript"),
    ("@a=1,2,3", "a[1+1]", "3", "a=(0:1 1:2 2:3)", ""),
    ("@a=1,2,3", "a[a[0]]", "2", "a=(0:1 1:2 2:3)", ""),
    ("@a=1,2,3", "a[1 / 0]", "1 / 0: division by 0 (error token is \"0\")", "a=(0:1 1:2 2:3)", ""),
    ("@a=1,2,3", "a[1/0] = 2", "1/0: division by 0 (error token is \"0\")", "a=(0:1 1:2 2:3)", ""),
    ("@a=1,2,3", "a[1+]", "1+: syntax error: operand expected (error token is \"+\")", "a=(0:1 1:2 2:3)", ""),
    ("@a=1,2,3", "a[-1] = 9", "9", "a=(0:1 1:2 2:9)", ""),
    ("@a=1,2,3", "a[-1] += 9", "12", "a=(0:1 1:2 2:12)", ""),
    ("@a=1,2,3", "a[-7] = 9", "9", "a=(0:1 1:2 2:3)", "a[-7]: bad array subscript"),
    ("@a=1,2,3", "a[-7]++", "0", "a=(0:1 1:2 2:3)", "a: bad array subscript\na[-7]: bad array subscript"),
    ("@a=1,2,3", "a[ 1 ] = 7", "7", "a=(0:1 1:7 2:3)", ""),
    ("@a=1,2,3", "a[ ] = 7", "7", "a=(0:7 1:2 2:3)", ""),
    ("@a=1,2,3", "a[1]]", "a[1]]: syntax error: invalid arithmetic operator (error token is \"]\")", "a=(0:1 1:2 2:3)", ""),
    ("@a=1,2,3", "a[1][0]", "a[1][0]: syntax error: invalid arithmetic operator (error token is \"[0]\")", "a=(0:1 1:2 2:3)", ""),
    ("@a=1,2,3", "a[1] [0]", "a[1] [0]: syntax error: invalid arithmetic operator (error token is \"[0]\")", "a=(0:1 1:2 2:3)", ""),
    ("@a=1,2,3", "a[@] = 5", "5", "a=(0:1 1:2 2:3)", "a[@]: bad array subscript"),
    ("@a=1,2,3", "a[*] += 5", "5", "a=(0:1 1:2 2:3)", "a[*]: bad array subscript\na[*]: bad array subscript"),
    ("@a=1,2,3", "a[] = 5", "5", "a=(0:1 1:2 2:3)", "`a[]': not a valid identifier"),
    ("@a=1,2,3", "++a[]", "1", "a=(0:1 1:2 2:3)", "a[]: bad array subscript\na[]: bad array subscript\n`a[]': not a valid identifier"),
    ("@a=1,2,3", "a[]++", "0", "a=(0:1 1:2 2:3)", "a[]: bad array subscript\na[]: bad array subscript\n`a[]': not a valid identifier"),
    ("@a=1,2,3", "a", "1", "a=(0:1 1:2 2:3)", ""),
    ("@a=1,2,3", "a = 7", "7", "a=(0:7 1:2 2:3)", ""),
    ("@a=1,2,3", "a[2] = a[0] + a[1]", "3", "a=(0:1 1:2 2:3)", ""),
    ("@a=1,2,3", "a[5] = 1", "1", "a=(0:1 1:2 2:3 5:1)", ""),
    ("@a=1,2,3", "a[1]++", "2", "a=(0:1 1:3 2:3)", ""),
    ("@a=1,2,3", "--a[2]", "2", "a=(0:1 1:2 2:2)", ""),
    ("@a=1,2,3", "a[0] *= a[2]", "3", "a=(0:3 1:2 2:3)", ""),
    ("@a=1,2,3", "a[ 2 ]", "3", "a=(0:1 1:2 2:3)", ""),
    ("@a=1,2,3", "a[(1)]", "2", "a=(0:1 1:2 2:3)", ""),
    ("@a=1,2,3", "a[x=2]", "3", "a=(0:1 1:2 2:3) x=2", ""),
    ("@a=1,2,3", "a[x=2] = x", "0", "a=(0:1 1:2 2:0) x=2", ""),
    ("@a=1,2,3", "a[1] = a[2] = 4", "4", "a=(0:1 1:4 2:4)", ""),
    ("@a=1,2,3", "a[-1]--", "3", "a=(0:1 1:2 2:2)", ""),
    ("@a=1,2,3;i=0", "a[i++] = i", "0", "a=(0:0 1:2 2:3) i=1", ""),
    ("@a=1,2,3;i=0", "a[i++] += i", "2", "a=(0:2 1:2 2:3) i=1", ""),
    ("@a=1,2,3;i=0", "a[i++]++", "1", "a=(0:2 1:2 2:3) i=1", ""),
    ("@a=1,2,3;i=0", "++a[i++]", "2", "a=(0:2 1:2 2:3) i=1", ""),
    ("@a=1,2,3;i=0", "a[i] + a[++i]", "3", "a=(0:1 1:2 2:3) i=1", ""),
    ("x=5", "x[0] + x[1]", "5", "x=5", ""),
    ("x=5", "x[1] = 3", "3", "x=(0:5 1:3)", ""),
    ("x=5", "x[0]++", "5", "x=(0:6)", ""),
    ("x=5", "x[2]++", "0", "x=(0:5 2:1)", ""),
    ("%h=k:5, k :7", "h[k]", "5", "h=[ k :7 k:5]", ""),
    ("%h=k:5, k :7", "h[ k ]", "7", "h=[ k :7 k:5]", ""),
    ("%h=k:5, k :7", "h[]", "0", "h=[ k :7 k:5]", "h[]: bad array subscript\nh[]: bad array subscript"),
    ("%h=k:5, k :7", "h[ ]", "0", "h=[ k :7 k:5]", ""),
    ("%h=k:5, k :7", "h[k]++", "5", "h=[ k :7 k:6]", ""),
    ("%h=k:5, k :7", "h", "0", "h=[ k :7 k:5]", ""),
    ("%h=k:5, k :7", "h[k] * 2", "10", "h=[ k :7 k:5]", ""),
    ("%h=k:5, k :7", "h[] = 5", "5", "h=[ k :7 k:5]", "`h[]': not a valid identifier"),
    ("%h=k:5, k :7", "h[@] = 5", "5", "h=[ k :7 @:5 k:5]", ""),
    ("%h=k:5, k :7", "h[x] = 2", "2", "h=[ k :7 k:5 x:2]", ""),
    ("%h=k:5, k :7", "h[k] += h[ k ]", "12", "h=[ k :7 k:12]", ""),
    ("%h=k:5, k :7", "h[1+1] = 2", "2", "h=[ k :7 1+1:2 k:5]", ""),
    ("%h=k:5, k :7", "h[@]", "0", "h=[ k :7 k:5]", ""),
    ("%h=@:4,*:6", "h[@] + h[*]", "10", "h=[*:6 @:4]", ""),
    ("%h=", "h[a b] = 3", "3", "h=[a b:3]", ""),
    ("%h=", "h[ a b ] = 3", "3", "h=[ a b :3]", ""),
    ("%h=", "h[ a b ] += 3", "3", "h=[ a b :3]", ""),
    ("%h=", "h[ a b ]++", "0", "h=[ a b :1]", ""),
    ("%h=", "h = 5", "5", "h=[0:5]", ""),
    ("%h=", "h[k]", "0", "h=[]", ""),
    ("%h=k:1+2", "h[k] * 2", "6", "h=[k:1+2]", ""),
    ("!x=1", "x = 2", "x: readonly variable", "x=1", ""),
    ("!x=1", "x++", "x: readonly variable", "x=1", ""),
    ("!x=1", "0 && x++", "0", "x=1", ""),
    ("!x=1", "y = 3, x = 2, y = 4", "x: readonly variable", "x=1 y=3", ""),
    ("!x=1", "x + 1", "2", "x=1", ""),
    ("!x=1", "x += 0", "x: readonly variable", "x=1", ""),
    ("!@a=1,2", "a[1] = 3", "a: readonly variable", "a=(0:1 1:2)", ""),
    ("!@a=1,2", "a[1]", "2", "a=(0:1 1:2)", ""),
    ("@a=1,2,3;!x=1", "a[x = 2]", "x: readonly variable", "a=(0:1 1:2 2:3) x=1", ""),
    ("@a=1,2,3;!x=1", "a[x = 2] = 1", "x: readonly variable", "a=(0:1 1:2 2:3) x=1", ""),
    ("i=3;j=4", "i * j + i", "15", "i=3 j=4", ""),
    ("i=3;j=4", "i == 3 && j == 4", "1", "i=3 j=4", ""),
    ("i=3;j=4", "i > j ? i : j", "4", "i=3 j=4", ""),
    ("i=3;j=4", "(i += 2) * j", "20", "i=5 j=4", ""),
    ("i=3;j=4", "i++ * j--", "12", "i=4 j=3", ""),
    ("i=3;j=4", "i ** 2 + j ** 2", "25", "i=3 j=4", ""),
    ("u=", "u", "0", "u=", ""),
    ("u=", "u++", "0", "u=1", ""),
    ("u=", "u + 1", "1", "u=", ""),
    ("", "z", "0", "", ""),
    ("", "z++", "0", "z=1", ""),
    ("", "++z", "1", "z=1", ""),
    ("", "z--", "0", "z=-1", ""),
    ("", "z += 3", "3", "z=3", ""),
    ("", "z[3]++", "0", "z=(3:1)", ""),
    ("", "z[3] = 1", "1", "z=(3:1)", ""),
    ("", "z[-1]", "0", "", "z: bad array subscript"),
    ("", "z[-1] = 1", "1", "", "z[-1]: bad array subscript"),
    ("num=num+2", "num", "num+2: expression recursion level exceeded (error token is \"num+2\")", "num=num+2", ""),
    ("", "1 ? x++ : y++", "0", "x=1", ""),
    ("", "0 ? x++ : y++", "0", "y=1", ""),
    ("", "x = 0 ? y++ : z++", "0", "x=0 z=1", ""),
    ("", "1\r+1", "1\r+1: syntax error: invalid arithmetic operator (error token is \"\r+1\")", "", ""),
    ("", "(1 + 2) * (3 - 4) / 5", "0", "", ""),
    ("", "1 - -1", "2", "", ""),
    ("", "1 - - 1", "2", "", ""),
    ("", "1---1", "0", "", ""),
    ("", "1 +++ 2", "3", "", ""),
    ("", "x+++y", "0", "x=1", ""),
    ("", "x---y", "0", "x=-1", ""),
    ("", "!x++", "1", "x=1", ""),
    ("", "~x--", "-1", "x=-1", ""),
    ("", "2 ** 3 * 2", "16", "", ""),
    ("", "-2 ** 3", "-8", "", ""),
    ("", "(2 ** 3) ** 2", "64", "", ""),
    ("", "10 % 3 ** 2", "1", "", ""),
    ("", "1 < 2 < 3", "1", "", ""),
    ("", "3 > 2 > 1", "0", "", ""),
    ("", "5 & 6 == 6", "1", "", ""),
    ("", "1 ^ 1 | 2", "2", "", ""),
    ("", "0 || 0 || 3", "1", "", ""),
    ("", "2 && 3", "1", "", ""),
    ("", "x = (y = 3) * 2, x", "6", "x=6 y=3", ""),
    ("", "x = 1, x += x += x", "3", "x=3", ""),
    ("y=2", "x = y ** y ** y", "16", "x=16 y=2", ""),
    ("y=2", "y <<= y", "8", "y=8", ""),
    ("x=5", "x /= x - 5", "x /= x - 5: division by 0 (error token is \"5\")", "x=5", ""),
    ("x=5", "0 && (x /= 0), x", "5", "x=5", ""),
    ("x=5", "x ? x : 1/0", "5", "x=5", ""),
    ("", "1 ? 2 : 3 : 4", "1 ? 2 : 3 : 4: syntax error in expression (error token is \": 4\")", "", ""),
    ("", "(1 ? 2 : 3", "(1 ? 2 : 3: missing `)' (error token is \"3\")", "", ""),
    ("", "1 ? (2 : 3)", "1 ? (2 : 3): missing `)' (error token is \": 3)\")", "", ""),
    ("", "?", "?: syntax error: operand expected (error token is \"?\")", "", ""),
    ("", ":", ":: syntax error: operand expected (error token is \":\")", "", ""),
    ("", "1 2 3", "1 2 3: syntax error in expression (error token is \"2 3\")", "", ""),
    ("", "x++y", "x++y: syntax error in expression (error token is \"y\")", "x=1", ""),
    ("", "3 = x", "3 = x: attempted assignment to non-variable (error token is \"= x\")", "", ""),
    ("", "x = = 1", "x = = 1: syntax error: operand expected (error token is \"= 1\")", "", ""),
    ("", "x == = 1", "x == = 1: syntax error: operand expected (error token is \"= 1\")", "", ""),
    ("", "0x7fffffffffffffff + 1", "-9223372036854775808", "", ""),
    ("", "-0x8000000000000000", "-9223372036854775808", "", ""),
    ("", "0xffffffffffffffff", "-1", "", ""),
    ("", "077", "63", "", ""),
    ("", "0778", "0778: value too great for base (error token is \"0778\")", "", ""),
    ("", "2#1111111111111111111111111111111111111111111111111111111111111111", "-1", "", ""),
    ("", "64#ZZZZZZZZZZZZ", "-2342443691899625603", "", ""),
    ("", "1#", "1#: invalid arithmetic base (error token is \"1#\")", "", ""),
    ("", "0#", "0#: invalid number (error token is \"0#\")", "", ""),
    ("", "10#", "10#: invalid integer constant (error token is \"10#\")", "", ""),
    ("", "16#", "16#: invalid integer constant (error token is \"16#\")", "", ""),
    ("", "08#1", "08#1: value too great for base (error token is \"08#1\")", "", ""),
    ("", "_", "0", "", ""),
    ("", "_x_ = 3", "3", "", ""),
    ("", "x1 = 2, x1 * x1", "4", "", ""),
    ("", "X = 4, X", "4", "", ""),
    ("@a=1,2,3", "a[1] = a[1] ** 2, a[1]", "4", "a=(0:1 1:4 2:3)", ""),
    ("@a=1,2,3", "a[0]++ + a[0]", "3", "a=(0:2 1:2 2:3)", ""),
    ("@a=1,2,3", "a[ 1 + 1 ] += 10", "13", "a=(0:1 1:2 2:13)", ""),
    ("%h=k:5", "h[k] = h[k] << 1", "10", "h=[k:10]", ""),
    ("%h=k:5", "h[k]--", "5", "h=[k:4]", ""),
    ("%h=k:5", "--h[k]", "4", "h=[k:4]", ""),
    ("x=3", "x ** x", "27", "x=3", ""),
    ("x=3", "x = x ** x, x", "27", "x=27", ""),
    ("x=010", "x", "8", "x=010", ""),
    ("x=0x", "x", "0", "x=0x", ""),
    ("x=1a", "x + 1", "1a: value too great for base (error token is \"1a\")", "x=1a", ""),
    ("x=1 1", "x", "1 1: syntax error in expression (error token is \"1\")", "x=1 1", ""),
    ("x=1)", "x", "1): syntax error in expression (error token is \")\")", "x=1)", ""),
    ("x=,", "x", ",: syntax error: operand expected (error token is \",\")", "x=,", ""),
];

/// Runs `f` on a thread with a main thread's stack: a chain of 1024 contexts takes more than
/// a test thread's 2 MiB in a debug build.
fn on_big_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

#[test]
fn cases_match_bash_answers() {
    on_big_stack(check_cases);
}

fn check_cases() {
    let mut failures = String::new();
    for &(setup, expr, result, after, warnings) in CASES {
        let got = run_ours(setup, expr);
        let want = Outcome {
            result: result.to_string(),
            after: after.to_string(),
            warnings: warnings.to_string(),
        };
        if got != want {
            writeln!(
                failures,
                "{setup:?} {expr:?}\n  want {want:?}\n  got  {got:?}"
            )
            .unwrap();
        }
    }
    assert!(failures.is_empty(), "{failures}");
}

#[test]
fn a_hundred_thousand_parentheses_are_an_error_not_a_crash() {
    let n = 100_000;
    let expr = format!("{}1{}", "(".repeat(n), ")".repeat(n));
    let err = eval(&expr, &mut TestEnv::default()).unwrap_err();
    assert!(err.message.ends_with(&format!(
        ": expression recursion level exceeded (error token is \"{}\")",
        &expr[MAX_NEST as usize + 1..]
    )));
    let unclosed = "(".repeat(n);
    let err = eval(&unclosed, &mut TestEnv::default()).unwrap_err();
    assert!(err.message.contains("expression recursion level exceeded"));
}

#[test]
fn a_variable_that_is_itself_stops_at_bash_limit() {
    let (result, gets) = on_big_stack(|| {
        let mut env = TestEnv::new("x=x");
        (eval("x", &mut env), env.gets)
    });
    let err = result.unwrap_err();
    assert_eq!(
        err.message,
        "x: expression recursion level exceeded (error token is \"x\")"
    );
    assert_eq!(err.kind, ArithErrorKind::Expression);
    // Bash's 1024 contexts (the expression and 1023 values of x) read x once each; the
    // 1024th value would need a 1025th.
    assert_eq!(gets, 1024);
}

#[test]
fn error_kinds_tell_how_bash_reports_them() {
    struct Warnings(TestEnv, Vec<ArithError>);
    impl ArithEnv for Warnings {
        fn get(&mut self, name: &str, sub: Subscript<'_>) -> Option<String> {
            self.0.get(name, sub)
        }
        fn set(&mut self, name: &str, sub: Subscript<'_>, value: i64) -> Result<(), String> {
            self.0.set(name, sub, value)
        }
        fn is_assoc(&self, name: &str) -> bool {
            self.0.is_assoc(name)
        }
        fn warn(&mut self, warning: &ArithError) {
            self.1.push(warning.clone());
        }
    }
    let kind = |setup: &str, expr: &str| {
        let setup = setup.to_string();
        let expr = expr.to_string();
        on_big_stack(move || eval(&expr, &mut TestEnv::new(&setup)).unwrap_err().kind)
    };
    assert_eq!(kind("", "1/0"), ArithErrorKind::Expression);
    assert_eq!(kind("x=1/0", "x"), ArithErrorKind::Expression);
    assert_eq!(kind("!x=1", "x=2"), ArithErrorKind::Report);
    assert_eq!(kind("@a=1", "a[1/0]"), ArithErrorKind::Fatal);
    assert_eq!(kind("@a=1", "a[1/0]=2"), ArithErrorKind::Fatal);
    assert_eq!(kind("@a=1;!x=1", "a[x=2]"), ArithErrorKind::Fatal);
    assert_eq!(kind("@a=1;y=a[1/0]", "y"), ArithErrorKind::Fatal);
    assert_eq!(kind("@a=1;x=a[x]", "x"), ArithErrorKind::Fatal);
    assert_eq!(kind("@a=1;x=a[x]", "a[1]+x"), ArithErrorKind::Fatal);

    let mut env = Warnings(TestEnv::new("@a=1"), Vec::new());
    assert_eq!(eval("a[@] + (a[] = 2)", &mut env), Ok(2));
    let got: Vec<(&str, ArithErrorKind)> =
        env.1.iter().map(|w| (w.message.as_str(), w.kind)).collect();
    assert_eq!(
        got,
        [
            ("a[@]: bad array subscript", ArithErrorKind::Report),
            ("`a[]': not a valid identifier", ArithErrorKind::Expression),
        ]
    );
}

#[test]
fn a_default_env_drops_warnings() {
    struct Bare;
    impl ArithEnv for Bare {
        fn get(&mut self, _: &str, _: Subscript<'_>) -> Option<String> {
            None
        }
        fn set(&mut self, _: &str, _: Subscript<'_>, _: i64) -> Result<(), String> {
            Ok(())
        }
        fn is_assoc(&self, _: &str) -> bool {
            false
        }
    }
    assert_eq!(eval("a[@] + 1", &mut Bare), Ok(1));
    assert_eq!(eval("", &mut Bare), Ok(0));
    assert_eq!(eval("2\0+3", &mut Bare), Ok(2));
}

#[test]
fn a_plain_name_is_read_once_and_its_value_parsed_fast() {
    let mut env = TestEnv::new("x=41;i=1");
    for _ in 0..3 {
        assert_eq!(eval("x+i", &mut env), Ok(42));
    }
    assert_eq!(env.gets, 6);
    assert_eq!(eval("x = x + 1", &mut env), Ok(42));
    assert_eq!(env.dump(), "i=1 x=42");
}

/// Any text of the arithmetic alphabet: an answer, never a panic or a blown stack.
#[test]
fn never_panics() {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};
    on_big_stack(|| {
        let alphabet = r"[0-9a-cxyz_@#\[\]()+\-*/%<>=!~&|^?:, \t\n$'\x22\\é]{0,40}";
        let setups = prop::sample::select(FUZZ_SETUPS.to_vec());
        let mut runner = TestRunner::new(Config {
            cases: 10_000,
            failure_persistence: None,
            ..Config::default()
        });
        runner
            .run(&(alphabet, setups), |(expr, setup)| {
                let mut env = TestEnv::new(setup);
                let _ = eval(&expr, &mut env);
                Ok(())
            })
            .unwrap();
    });
}

/// The same with values that are expressions themselves, and long random strings.
#[test]
fn never_panics_on_long_random_text() {
    on_big_stack(|| {
        const ALPHABET: &[u8] = b"0123456789abxyz_@#[]()+-*/%<>=!~&|^?:, \t\n$'";
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        for _ in 0..30_000 {
            let len = rng.below(60);
            let expr: String = (0..len)
                .map(|_| char::from(ALPHABET[rng.below(ALPHABET.len())]))
                .collect();
            let value: String = (0..rng.below(12))
                .map(|_| char::from(ALPHABET[rng.below(ALPHABET.len())]))
                .collect();
            let setup = format!("x={value};y=x+1;@a=y,x;z=a[x]");
            let _ = eval(&expr, &mut TestEnv::new(&setup));
        }
    });
}

// ---- against the installed bash (ignored: they need bash 5.2) ----

/// The variables `bash_dump` looks at: every name the cases use.
const DUMP_NAMES: &str = "a b c d f g h i j k m n p q r s t u v w x y z foo bar num";

/// A bash script that sets up `setup`, evaluates `$1` as `$(( ))` does and prints the
/// result and the variables.
fn bash_script(setup: &str) -> String {
    let quote = |v: &str| format!("'{}'", v.replace('\'', r"'\''"));
    let mut script = String::new();
    for item in setup.split(';').filter(|s| !s.is_empty()) {
        let (ro, item) = match item.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, item),
        };
        let (name, value) = item.split_once('=').unwrap();
        let elems = || value.split(',').filter(|v| !v.is_empty());
        if let Some(name) = name.strip_prefix('@') {
            let vals: Vec<String> = elems().map(quote).collect();
            writeln!(script, "{name}=({})", vals.join(" ")).unwrap();
        } else if let Some(name) = name.strip_prefix('%') {
            let vals: Vec<String> = elems()
                .map(|kv| {
                    let (k, v) = kv.split_once(':').unwrap();
                    format!("[{}]={}", quote(k), quote(v))
                })
                .collect();
            writeln!(script, "declare -A {name}=({})", vals.join(" ")).unwrap();
        } else {
            writeln!(script, "{name}={}", quote(value)).unwrap();
        }
        if ro {
            let name = name.trim_start_matches(['@', '%']);
            writeln!(script, "readonly {name}").unwrap();
        }
    }
    script.push_str("__e=$1\n__r=$(($__e))\n");
    script.push_str("[[ -v __r ]] && printf 'ok:%s\\x1e' \"$__r\"\n");
    write!(
        script,
        r#"for __n in {DUMP_NAMES}; do
  __d=$(declare -p "$__n" 2>/dev/null) || continue
  __f=${{__d#declare -}}; __f=${{__f%% *}}
  case $__f in
    *A*|*a*) eval "__ks=(\"\${{!$__n[@]}}\")"
      printf 'V\x1f%s\x1f%s\x1e' "$__n" "$__f"
      for __k in "${{__ks[@]}}"; do eval "__v=\${{$__n[\$__k]}}"; printf 'E\x1f%s\x1f%s\x1f%s\x1e' "$__n" "$__k" "$__v"; done ;;
    *) [[ ${{!__n+set}} ]] && printf 'S\x1f%s\x1f%s\x1e' "$__n" "${{!__n}}" ;;
  esac
done
"#
    )
    .unwrap();
    script
}

fn run_bash(setup: &str, expr: &str) -> Outcome {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.sh");
    std::fs::write(&path, bash_script(setup)).unwrap();
    let out = std::process::Command::new("bash")
        .arg(&path)
        .arg(expr)
        .env("LC_ALL", "C")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    // Messages start with "PATH: line N: ".
    let prefix = format!("{}: line ", path.display());
    let mut messages: Vec<String> = stderr
        .split(&prefix)
        .filter(|m| !m.is_empty())
        .map(|m| {
            let m = m.strip_suffix('\n').unwrap_or(m);
            m.split_once(": ").map_or(m, |(_, rest)| rest).to_string()
        })
        .collect();
    let mut result = None;
    let mut scalars = BTreeMap::new();
    let mut arrays: BTreeMap<String, (bool, Vec<String>)> = BTreeMap::new();
    for line in stdout.split('\x1e').filter(|l| !l.is_empty()) {
        if let Some(v) = line.strip_prefix("ok:") {
            result = Some(v.to_string());
            continue;
        }
        let f: Vec<&str> = line.split('\x1f').collect();
        match f[0] {
            "S" => {
                scalars.insert(f[1].to_string(), f[2].to_string());
            }
            "V" => {
                arrays.insert(f[1].to_string(), (f[2].contains('A'), Vec::new()));
            }
            "E" => arrays
                .get_mut(f[1])
                .unwrap()
                .1
                .push(format!("{}:{}", f[2], f[3])),
            _ => panic!("bash said {line:?}"),
        }
    }
    let result = match result {
        Some(v) => v,
        None => messages.pop().unwrap_or_default(),
    };
    let mut parts = BTreeMap::new();
    for (n, v) in scalars {
        parts.insert(n.clone(), format!("{n}={v}"));
    }
    for (n, (assoc, mut elems)) in arrays {
        if assoc {
            elems.sort();
            parts.insert(n.clone(), format!("{n}=[{}]", elems.join(" ")));
        } else {
            parts.insert(n.clone(), format!("{n}=({})", elems.join(" ")));
        }
    }
    Outcome {
        result,
        after: parts.into_values().collect::<Vec<_>>().join(" "),
        warnings: messages.join("\n"),
    }
}

fn rust_str(s: &str) -> String {
    format!("{s:?}")
}

#[test]
#[ignore = "needs bash 5.2; prints the table lines that differ"]
fn table_matches_bash() {
    let all = std::env::var_os("ARITH_REGEN").is_some();
    let mut diffs = String::new();
    for &(setup, expr, result, after, warnings) in CASES {
        let b = run_bash(setup, expr);
        if all
            || (b.result.as_str(), b.after.as_str(), b.warnings.as_str())
                != (result, after, warnings)
        {
            writeln!(
                diffs,
                "    ({}, {}, {}, {}, {}),",
                rust_str(setup),
                rust_str(expr),
                rust_str(&b.result),
                rust_str(&b.after),
                rust_str(&b.warnings)
            )
            .unwrap();
        }
    }
    assert!(diffs.is_empty(), "bash says:\n{diffs}");
}

/// The deepest expressions, run on a big stack while the env notes how deep the stack went:
/// the caps must keep it within a pipeline stage's 2 MiB (release) or 8 MiB (debug).
#[test]
fn deepest_evaluations_fit_the_stack() {
    struct Probe {
        base: usize,
        max: usize,
        inner: TestEnv,
    }
    impl ArithEnv for Probe {
        fn get(&mut self, name: &str, sub: Subscript<'_>) -> Option<String> {
            self.note();
            self.inner.get(name, sub)
        }
        fn set(&mut self, name: &str, sub: Subscript<'_>, value: i64) -> Result<(), String> {
            self.note();
            self.inner.set(name, sub, value)
        }
        fn is_assoc(&self, name: &str) -> bool {
            self.inner.is_assoc(name)
        }
    }
    impl Probe {
        #[inline(never)]
        fn note(&mut self) {
            let here = 0u8;
            let addr = std::ptr::addr_of!(here) as usize;
            self.max = self.max.max(self.base.saturating_sub(addr));
        }
    }
    // Every operand evaluated (no short cut), at every precedence level.
    let chain = "0||1&&1|1^1&1==1<1<<1+1*";
    // Nested as deep as the cap lets the innermost `z` be read.
    let nestings = [
        ("(", ")"),
        ("- ", ""),
        ("~+", ""),
        ("2**", ""),
        ("1?", ":1"),
        ("0?1:", ""),
        ("y=", ""),
        ("y+=", ""),
        ("-(", ")"),
        (&format!("{chain}("), ")"),
        ("x+(", ")"),
    ];
    let mut cases: Vec<(String, String)> = Vec::new();
    for (open, close) in nestings {
        let fits = |n: usize| {
            let expr = format!("{}z{}", open.repeat(n), close.repeat(n));
            eval(&expr, &mut TestEnv::new("")).is_ok()
        };
        let (mut lo, mut hi) = (1, MAX_NEST as usize);
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if fits(mid) { lo = mid } else { hi = mid - 1 }
        }
        let n = lo;
        cases.push((
            "x=1".into(),
            format!("{}z{}", open.repeat(n), close.repeat(n)),
        ));
    }
    let deep = |open: &str, close: &str| format!("{}x{}", open.repeat(100), close.repeat(100));
    cases.extend(
        [
            ("x=x", "x"),
            ("x=(x)", "x"),
            ("x=((((((((((x))))))))))", "x"),
            ("@a=1;x=a[x]", "x"),
            ("@a=1;x=a[(((x)))]", "x"),
            ("@a=1;x=a[x]", "a[x]=1"),
            ("@a=1;x=a[x]++", "x"),
        ]
        .map(|(s, e)| (s.to_string(), e.to_string())),
    );
    cases.push((format!("x={}", deep("(", ")")), "x".into()));
    cases.push((format!("x={}", deep(&format!("{chain}("), ")")), "x".into()));
    let budget = if cfg!(debug_assertions) {
        6 << 20
    } else {
        3 << 19
    };
    for (setup, expr) in cases {
        let (max, result) = std::thread::Builder::new()
            .stack_size(64 << 20)
            .spawn(move || {
                let here = 0u8;
                let mut probe = Probe {
                    base: std::ptr::addr_of!(here) as usize,
                    max: 0,
                    inner: TestEnv::new(&setup),
                };
                let result = eval(&expr, &mut probe);
                (probe.max, result)
            })
            .unwrap()
            .join()
            .unwrap();
        let result = result.map_err(|e| e.message.chars().take(60).collect::<String>());
        eprintln!("{max:>9} bytes  {result:?}");
        assert!(max < budget, "{max} bytes of stack for {result:?}");
    }
}

/// A deterministic xorshift generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// A random expression, mostly well formed, sometimes not.
fn random_expr(rng: &mut Rng, depth: u32) -> String {
    const ATOMS: &[&str] = &[
        "0",
        "1",
        "2",
        "7",
        "-1",
        "010",
        "08",
        "0x1f",
        "0x",
        "2#101",
        "36#z",
        "64#@_",
        "1a",
        "9223372036854775807",
        "x",
        "y",
        "z",
        "i",
        "r",
        "a[0]",
        "a[i]",
        "a[-1]",
        "a[5]",
        "a[]",
        "a[@]",
        "h[k]",
        "h[ j ]",
        "h[q]",
        "a",
        "h",
        "u",
        "x++",
        "++x",
        "y--",
        "--y",
        "a[i]++",
        "++a[1]",
        "h[k]++",
        "r++",
    ];
    const BINOPS: &[&str] = &[
        "+", "-", "*", "/", "%", "**", "<<", ">>", "<", "<=", ">", ">=", "==", "!=", "&", "^", "|",
        "&&", "||", ",",
    ];
    const ASSIGNOPS: &[&str] = &[
        "=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|=",
    ];
    const UNARY: &[&str] = &["-", "+", "!", "~"];
    const JUNK: &[&str] = &[
        "", "", "", "", " ", "(", ")", "?", ":", "=", "$", "'", "[", "]", "#", "@",
    ];
    const LVALUES: &[&str] = &["x", "y", "z", "a[1]", "a[i]", "h[k]", "h[ n ]", "r", "u"];
    let sp = |rng: &mut Rng| rng.pick(&["", "", " ", "  ", "\t", "\n"]).to_string();
    if depth == 0 {
        rng.pick(ATOMS).to_string()
    } else {
        let d = depth - 1;
        match rng.below(10) {
            0..=3 => format!(
                "{}{}{}{}{}",
                random_expr(rng, d),
                sp(rng),
                rng.pick(BINOPS),
                sp(rng),
                random_expr(rng, d)
            ),
            4 => format!("{}{}", rng.pick(UNARY), random_expr(rng, d)),
            5 => format!("({}{})", random_expr(rng, d), sp(rng)),
            6 => format!(
                "{} ? {} : {}",
                random_expr(rng, d),
                random_expr(rng, d),
                random_expr(rng, d)
            ),
            7 => format!(
                "{}{}{}{}",
                rng.pick(LVALUES),
                sp(rng),
                rng.pick(ASSIGNOPS),
                random_expr(rng, d)
            ),
            8 => format!("{}{}", random_expr(rng, d), rng.pick(JUNK)),
            _ => rng.pick(ATOMS).to_string(),
        }
    }
}

const FUZZ_SETUPS: &[&str] = &[
    "x=5;y=-3;i=1;@a=1,2,3;%h=k:2, j :3;!r=4",
    "x=1 +;y=x;@a=4,5;i=7",
    "x=y;y=7;z=z;i=0;@a=i++,2",
    "x=a[1];@a=3,x+1;%h=k:h[k]+1;u=",
    "",
];

#[test]
#[ignore = "needs bash 5.2; ARITH_FUZZ_N cases (default 500)"]
fn fuzz_against_bash() {
    let n: usize = std::env::var("ARITH_FUZZ_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(500);
    let seed: u64 = std::env::var("ARITH_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x9e37_79b9_7f4a_7c15);
    let mut rng = Rng(seed);
    let mut diffs = String::new();
    let mut count = 0;
    for _ in 0..n {
        let setup = rng.pick(FUZZ_SETUPS);
        let depth = 1 + rng.below(4) as u32;
        let expr = random_expr(&mut rng, depth);
        let ours = on_big_stack({
            let expr = expr.clone();
            move || run_ours(setup, &expr)
        });
        let bash = run_bash(setup, &expr);
        if ours != bash && count < 40 {
            count += 1;
            writeln!(
                diffs,
                "{setup:?} {expr:?}\n  bash {bash:?}\n  ours {ours:?}"
            )
            .unwrap();
        }
    }
    assert!(diffs.is_empty(), "{diffs}");
}
