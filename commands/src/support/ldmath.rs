//! Arithmetic on the x87 `long double` of [`crate::support::ldouble`]: sums, products and
//! comparisons rounded as the FPU rounds them (to nearest, ties to even), for the utilities
//! that compute in `long double` (`seq`).

use std::cmp::Ordering;

use crate::support::ldouble::{Big, Class, LongDouble, round_to_long_double};

/// An unsigned 128-bit value as a [`Big`].
fn big(v: u128) -> Big {
    let mut b = Big::default();
    for k in (0..8).rev() {
        b.mul_add_small(1 << 16, ((v >> (k * 16)) & 0xffff) as u32);
    }
    b
}

/// The value as (negative, mantissa, exponent), `None` for zero, infinities and NaNs.
fn parts(v: &LongDouble) -> Option<(bool, u64, i64)> {
    match v.class {
        Class::Finite { mant, exp } => Some((v.negative, mant, exp)),
        _ => None,
    }
}

fn nan() -> LongDouble {
    LongDouble {
        negative: false,
        class: Class::Nan,
    }
}

/// `a + b`.
pub fn add(a: &LongDouble, b: &LongDouble) -> LongDouble {
    match (a.class, b.class) {
        (Class::Nan, _) | (_, Class::Nan) => return nan(),
        (Class::Inf, Class::Inf) if a.negative != b.negative => return nan(),
        (Class::Zero, Class::Zero) => {
            return LongDouble {
                negative: a.negative && b.negative,
                class: Class::Zero,
            };
        }
        (Class::Inf, _) | (_, Class::Zero) => return *a,
        (_, Class::Inf) | (Class::Zero, _) => return *b,
        _ => {}
    }
    let (Some(pa), Some(pb)) = (parts(a), parts(b)) else {
        return nan();
    };
    // The operand with the larger exponent first.
    let (hi, lo) = if (pa.2, pa.1) >= (pb.2, pb.1) {
        (pa, pb)
    } else {
        (pb, pa)
    };
    let diff = hi.2 - lo.2;
    if diff > 66 {
        // Below a quarter of the larger one's last place: it rounds away.
        return if hi == pa { *a } else { *b };
    }
    // 63 guard bits below the larger mantissa; the bits of the smaller one shifted out are
    // jammed into the lowest bit, which keeps the rounding exact.
    let x = u128::from(hi.1) << 63;
    let y = if diff <= 63 {
        u128::from(lo.1) << (63 - diff)
    } else {
        let s = diff - 63;
        let kept = u128::from(lo.1 >> s);
        kept | u128::from(lo.1 & ((1u64 << s) - 1) != 0)
    };
    let (negative, sum) = if hi.0 == lo.0 {
        (hi.0, x + y)
    } else if x >= y {
        (hi.0, x - y)
    } else {
        (lo.0, y - x)
    };
    if sum == 0 {
        return LongDouble::ZERO;
    }
    round_to_long_double(negative, &big(sum), hi.2 - 63, false).0
}

/// `a * b`.
pub fn mul(a: &LongDouble, b: &LongDouble) -> LongDouble {
    let negative = a.negative != b.negative;
    match (a.class, b.class) {
        (Class::Nan, _)
        | (_, Class::Nan)
        | (Class::Inf, Class::Zero)
        | (Class::Zero, Class::Inf) => nan(),
        (Class::Inf, _) | (_, Class::Inf) => LongDouble {
            negative,
            class: Class::Inf,
        },
        (Class::Zero, _) | (_, Class::Zero) => LongDouble {
            negative,
            class: Class::Zero,
        },
        (Class::Finite { mant: ma, exp: ea }, Class::Finite { mant: mb, exp: eb }) => {
            let product = u128::from(ma) * u128::from(mb);
            round_to_long_double(negative, &big(product), ea + eb, false).0
        }
    }
}

/// The order of two values; `None` when one is a NaN. `-0` equals `0`.
pub fn cmp(a: &LongDouble, b: &LongDouble) -> Option<Ordering> {
    let key = |v: &LongDouble| -> Option<(i8, i64, u64)> {
        match v.class {
            Class::Nan => None,
            Class::Zero => Some((0, 0, 0)),
            Class::Inf => Some((2, 0, 0)),
            Class::Finite { mant, exp } => Some((1, exp, mant)),
        }
    };
    let (ka, kb) = (key(a)?, key(b)?);
    let sign = |v: &LongDouble, k: (i8, i64, u64)| {
        if k.0 == 0 {
            0
        } else if v.negative {
            -1
        } else {
            1
        }
    };
    let (sa, sb) = (sign(a, ka), sign(b, kb));
    if sa != sb {
        return Some(sa.cmp(&sb));
    }
    let magnitude = ka.cmp(&kb);
    Some(if sa < 0 {
        magnitude.reverse()
    } else {
        magnitude
    })
}

/// `a / b`, rounded as the FPU rounds it (`numfmt`).
pub fn div(a: &LongDouble, b: &LongDouble) -> LongDouble {
    let negative = a.negative != b.negative;
    let signed = |class| LongDouble { negative, class };
    match (a.class, b.class) {
        (Class::Nan, _)
        | (_, Class::Nan)
        | (Class::Inf, Class::Inf)
        | (Class::Zero, Class::Zero) => nan(),
        (Class::Inf, _) | (_, Class::Zero) => signed(Class::Inf),
        (Class::Zero, _) | (_, Class::Inf) => signed(Class::Zero),
        (Class::Finite { mant: ma, exp: ea }, Class::Finite { mant: mb, exp: eb }) => {
            // (ma * 2^128 / mb) has at least 64 significant bits; the remainder is sticky.
            let mut num = Big::from_u64(ma);
            num.shl(128);
            let (q, r) = num.divmod(&Big::from_u64(mb));
            round_to_long_double(negative, &q, ea - eb - 128, !r.is_zero()).0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::support::ldouble::strtold;

    fn ld(s: &str) -> LongDouble {
        strtold(s.as_bytes()).value
    }

    #[test]
    fn sums_products_and_order() {
        assert_eq!(add(&ld("1"), &ld("2")), ld("3"));
        assert_eq!(add(&ld("0.1"), &ld("0.2")), add(&ld("0.2"), &ld("0.1")));
        assert_eq!(add(&ld("5"), &ld("-7")), ld("-2"));
        assert_eq!(add(&ld("1e30"), &ld("1")), ld("1e30"));
        assert_eq!(add(&ld("1"), &ld("-1")), LongDouble::ZERO);
        assert_eq!(mul(&ld("3"), &ld("0.5")), ld("1.5"));
        assert_eq!(mul(&ld("-4"), &ld("2.5")), ld("-10"));
        assert_eq!(cmp(&ld("-3"), &ld("2")), Some(Ordering::Less));
        assert_eq!(cmp(&ld("-3"), &ld("-2")), Some(Ordering::Less));
        assert_eq!(cmp(&ld("0"), &ld("-0")), Some(Ordering::Equal));
        assert_eq!(cmp(&ld("inf"), &ld("1e4000")), Some(Ordering::Greater));
        assert_eq!(cmp(&ld("nan"), &ld("1")), None);
    }
}
