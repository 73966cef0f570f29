//! `factor`, GNU coreutils: the prime factors of each operand, or of each whitespace-separated
//! token of stdin. Numbers of any size, as GNU's with GMP: up to `u64` by machine arithmetic,
//! beyond by `num-bigint`; trial division, then Miller-Rabin and Pollard-Brent rho. A number
//! hard to split goes on until the line's deadline ([`Ctx::expired`]).

use std::ffi::OsString;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;

use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::{One, ToPrimitive, Zero};

use crate::Stop;
use crate::support::args::parse_args;
use crate::support::quote::quote_locale;
use crate::{Ctx, Outcome};

/// Print the prime factors of each specified integer NUMBER.  If none
/// are specified on the command line, read them from standard input.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "factor [NUMBER]...\n  or:  factor OPTION")]
pub struct FactorArgs {
    numbers: Vec<OsString>,
}

/// The primes below 1000, for trial division.
fn small_primes() -> impl Iterator<Item = u64> {
    (2u64..1000).filter(|&p| (2..p).take_while(|d| d * d <= p).all(|d| p % d != 0))
}

/// An operand as GNU reads it: spaces, then an optional `+`, then decimal digits only.
fn parse(token: &[u8]) -> Option<BigUint> {
    let mut t = token;
    while let Some(rest) = t.strip_prefix(b" ") {
        t = rest;
    }
    let t = t.strip_prefix(b"+").unwrap_or(t);
    if t.is_empty() || !t.iter().all(u8::is_ascii_digit) {
        return None;
    }
    BigUint::parse_bytes(t, 10)
}

fn mul_mod(a: u64, b: u64, m: u64) -> u64 {
    let p = u128::from(a) * u128::from(b) % u128::from(m);
    u64::try_from(p).unwrap_or(0)
}

fn pow_mod(mut b: u64, mut e: u64, m: u64) -> u64 {
    let mut r = 1 % m;
    b %= m;
    while e > 0 {
        if e & 1 == 1 {
            r = mul_mod(r, b, m);
        }
        b = mul_mod(b, b, m);
        e >>= 1;
    }
    r
}

/// The Miller-Rabin bases that decide every `u64`.
const BASES: [u64; 12] = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37];

/// Miller-Rabin with the bases that decide every `u64`.
fn is_prime_u64(n: u64) -> bool {
    if n < 2 {
        return false;
    }
    for p in BASES {
        if n.is_multiple_of(p) {
            return n == p;
        }
    }
    let s = (n - 1).trailing_zeros();
    let d = (n - 1) >> s;
    'bases: for a in BASES {
        let mut x = pow_mod(a, d, n);
        if x == 1 || x == n - 1 {
            continue;
        }
        for _ in 1..s {
            x = mul_mod(x, x, n);
            if x == n - 1 {
                continue 'bases;
            }
        }
        return false;
    }
    true
}

fn gcd_u64(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// A nontrivial factor of the composite odd `n` (Pollard-Brent), or `None` once the
/// deadline passed.
#[allow(clippy::many_single_char_names)] // the algorithm's names
fn rho_u64(n: u64, ctx: &Ctx) -> Option<u64> {
    let mut c = 1u64;
    loop {
        let f = |x: u64| (mul_mod(x, x, n) + c) % n;
        let (mut y, mut r, mut q, mut g) = (2u64, 1u64, 1u64, 1u64);
        let (mut x, mut ys) = (y, y);
        let mut steps = 0u64;
        while g == 1 {
            x = y;
            for _ in 0..r {
                y = f(y);
            }
            let mut k = 0;
            while k < r && g == 1 {
                ys = y;
                for _ in 0..128.min(r - k) {
                    y = f(y);
                    q = mul_mod(q, x.abs_diff(y), n);
                }
                g = gcd_u64(q, n);
                k += 128;
                steps += 128;
                if steps.is_multiple_of(65536) && ctx.expired() {
                    return None;
                }
            }
            r *= 2;
        }
        if g == n {
            loop {
                ys = f(ys);
                g = gcd_u64(x.abs_diff(ys), n);
                if g > 1 {
                    break;
                }
            }
        }
        if g != n {
            return Some(g);
        }
        c += 1;
    }
}

/// The prime factors of `n` (> 1, no factor below 1000) into `out`; false on the deadline.
fn split_u64(n: u64, out: &mut Vec<BigUint>, ctx: &Ctx) -> bool {
    if n == 1 {
        return true;
    }
    if is_prime_u64(n) {
        out.push(BigUint::from(n));
        return true;
    }
    let Some(d) = rho_u64(n, ctx) else {
        return false;
    };
    split_u64(d, out, ctx) && split_u64(n / d, out, ctx)
}

/// Miller-Rabin on a big number with the first 24 primes as bases (GNU: BPSW); a composite
/// passing all of them is not known.
#[allow(clippy::many_single_char_names)] // the algorithm's names
fn is_prime_big(n: &BigUint) -> bool {
    let one = BigUint::one();
    let two = BigUint::from(2u32);
    let m1 = n - &one;
    let s = m1.trailing_zeros().unwrap_or(0);
    let d = &m1 >> s;
    'bases: for a in small_primes().take(24) {
        let a = BigUint::from(a);
        if &a >= n {
            continue;
        }
        let mut x = a.modpow(&d, n);
        if x == one || x == m1 {
            continue;
        }
        for _ in 1..s {
            x = x.modpow(&two, n);
            if x == m1 {
                continue 'bases;
            }
        }
        return false;
    }
    true
}

/// Pollard-Brent on a big composite; `None` once the deadline passed.
#[allow(clippy::many_single_char_names)] // the algorithm's names
fn rho_big(n: &BigUint, ctx: &Ctx) -> Option<BigUint> {
    let one = BigUint::one();
    let mut c = BigUint::one();
    loop {
        let f = |x: &BigUint| (x * x + &c) % n;
        let mut y = BigUint::from(2u32);
        let mut r = 1u64;
        let mut q = BigUint::one();
        let mut g = BigUint::one();
        let mut x = y.clone();
        let mut ys = y.clone();
        let mut steps = 0u64;
        let diff = |a: &BigUint, b: &BigUint| if a > b { a - b } else { b - a };
        while g == one {
            x.clone_from(&y);
            for _ in 0..r {
                y = f(&y);
            }
            let mut k = 0;
            while k < r && g == one {
                ys.clone_from(&y);
                for _ in 0..128.min(r - k) {
                    y = f(&y);
                    q = (q * diff(&x, &y)) % n;
                }
                g = q.gcd(n);
                k += 128;
                steps += 128;
                if steps.is_multiple_of(1024) && ctx.expired() {
                    return None;
                }
            }
            r *= 2;
        }
        if &g == n {
            loop {
                ys = f(&ys);
                g = diff(&x, &ys).gcd(n);
                if g > one {
                    break;
                }
            }
        }
        if &g != n {
            return Some(g);
        }
        c += 1u32;
    }
}

fn split_big(n: &BigUint, out: &mut Vec<BigUint>, ctx: &Ctx) -> bool {
    if let Some(small) = n.to_u64() {
        return split_u64(small, out, ctx);
    }
    if is_prime_big(n) {
        out.push(n.clone());
        return true;
    }
    let Some(d) = rho_big(n, ctx) else {
        return false;
    };
    let rest = n / &d;
    split_big(&d, out, ctx) && split_big(&rest, out, ctx)
}

/// `N: p p q` (`N:` for 0 and 1), or `None` when the deadline passed first.
fn factor_line(n: &BigUint, ctx: &Ctx) -> Option<String> {
    let mut line = format!("{n}:");
    let mut rest = n.clone();
    let mut found: Vec<BigUint> = Vec::new();
    if !rest.is_zero() {
        for p in small_primes() {
            let bp = BigUint::from(p);
            if &bp * &bp > rest {
                break;
            }
            while (&rest % &bp).is_zero() {
                rest /= &bp;
                found.push(bp.clone());
            }
        }
        let mut big = Vec::new();
        if rest > BigUint::one() {
            if rest < BigUint::from(1_000_000u32) {
                big.push(rest);
            } else if !split_big(&rest, &mut big, ctx) {
                return None;
            }
        }
        big.sort();
        found.extend(big);
    }
    for p in found {
        line.push(' ');
        line.push_str(&p.to_string());
    }
    line.push('\n');
    Some(line)
}

/// Factors one token into the outcome; false when the deadline passed.
fn one(token: &[u8], o: &mut Outcome, ctx: &Ctx) -> bool {
    let Some(n) = parse(token) else {
        o.err(format!(
            "factor: {} is not a valid positive integer\n",
            quote_locale(std::ffi::OsStr::from_bytes(token))
        ));
        o.status = 1;
        return true;
    };
    let Some(line) = factor_line(&n, ctx) else {
        return false;
    };
    o.out(line);
    true
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<FactorArgs>(args)?;
    let mut o = Outcome::ok();
    if !a.numbers.is_empty() {
        for n in &a.numbers {
            if !one(n.as_bytes(), &mut o, ctx) || !ctx.flush(&mut o) {
                break;
            }
        }
        return Ok(o);
    }
    // Tokens of stdin, separated by spaces, tabs and newlines, read in chunks.
    let mut input = ctx.stdin;
    let mut buf = vec![0u8; 64 * 1024];
    let mut token: Vec<u8> = Vec::new();
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        for &b in buf.get(..n).unwrap_or_default() {
            if matches!(b, b' ' | b'\t' | b'\n') {
                if !token.is_empty() {
                    if !one(&token, &mut o, ctx) {
                        return Ok(o);
                    }
                    token.clear();
                }
            } else {
                token.push(b);
            }
        }
        if !ctx.flush(&mut o) {
            return Ok(o);
        }
    }
    if !token.is_empty() {
        one(&token, &mut o, ctx);
    }
    Ok(o)
}

#[cfg(test)]
mod tests {
    use crate::CommandName::Factor;
    use crate::testing::world::{World, text};

    fn out(args: &[&str]) -> (String, String, i32) {
        text(&World::empty().run(Factor, args))
    }

    #[test]
    fn factors_as_gnu() {
        assert_eq!(
            out(&["0", "1", "12", "007", " +5"]).0,
            "0:\n1:\n12: 2 2 3\n7: 7\n5: 5\n"
        );
        assert_eq!(
            out(&["18446744073709551617"]).0,
            "18446744073709551617: 274177 67280421310721\n"
        );
        assert_eq!(
            out(&["340282366920938463463374607431768211455"]).0,
            "340282366920938463463374607431768211455: 3 5 17 257 641 65537 274177 6700417 67280421310721\n"
        );
        assert_eq!(
            out(&["99999999999999999999999999999999999999999999"]).0,
            "99999999999999999999999999999999999999999999: 3 3 11 11 23 89 101 4093 8779 21649 513239 1052788969 1056689261\n"
        );
        assert_eq!(
            out(&["170141183460469231731687303715884105727"]).0,
            "170141183460469231731687303715884105727: 170141183460469231731687303715884105727\n"
        );
        assert_eq!(
            out(&["18446744073709551557", "4294967291"]).0,
            "18446744073709551557: 18446744073709551557\n4294967291: 4294967291\n"
        );
        assert_eq!(out(&["999999000001"]).0, "999999000001: 999999000001\n");
        assert_eq!(
            out(&["1000036000099"]).0,
            "1000036000099: 1000003 1000033\n"
        );
    }

    #[test]
    fn errors_as_gnu() {
        assert_eq!(
            out(&["x", "12 ", "3"]),
            (
                "3: 3\n".into(),
                "factor: 'x' is not a valid positive integer\nfactor: '12 ' is not a valid positive integer\n".into(),
                1
            )
        );
        assert_eq!(
            out(&["\t9"]).1,
            "factor: '\\t9' is not a valid positive integer\n"
        );
    }

    #[test]
    fn stdin_tokens() {
        let w = World::empty().stdin(b"4 6\n 9x\t10\n\n 7 ,8");
        assert_eq!(
            text(&w.run(Factor, &[])),
            (
                "4: 2 2\n6: 2 3\n10: 2 5\n7: 7\n".into(),
                "factor: '9x' is not a valid positive integer\nfactor: ',8' is not a valid positive integer\n".into(),
                1
            )
        );
    }
}
