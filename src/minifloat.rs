//! Minifloats: the 8-, 6- and 4-bit floating-point data types of the Zarr extension
//! registry, with the meaning ml_dtypes gives them.
//!
//! Each type holds one code in one byte. The 6- and 4-bit types use the low bits:
//! [`from_bits`](Float4E2M1FN::from_bits) clears the others, decoding ignores them and
//! encoding writes them as zero. [`to_f32`](Float8E4M3FN::to_f32) is exact for every code
//! (every minifloat value is a `f32` value); [`from_f32`](Float8E4M3FN::from_f32) rounds
//! to the nearest code, ties to even.
//!
//! Equality and order are numeric, as for `f32`: NaN equals nothing, `-0.0 == 0.0`. Compare
//! [`to_bits`](Float8E4M3FN::to_bits) for bit-exact equality.
//!
//! # Examples
//!
//! ```
//! use zarr_bytes::minifloat::{Float4E2M1FN, Float8E4M3FN};
//!
//! let x = Float8E4M3FN::from_bits(0x7e);
//! assert_eq!(x.to_f32(), 448.0); // the largest finite value
//! assert!(Float8E4M3FN::from_bits(0x7f).is_nan());
//! assert_eq!(Float4E2M1FN::from_bits(0xf7).to_bits(), 0x07); // the high bits are cleared
//! assert_eq!(Float4E2M1FN::from_f32(5.0).to_f32(), 4.0); // 5 is a tie: to the even code
//! ```

use std::cmp::Ordering;
use std::fmt;

/// Which codes of a format are special.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Specials {
    /// IEEE 754 style: the top exponent holds infinities (mantissa 0) and NaNs.
    Ieee,
    /// Finite, with NaN the one code (per sign) of all ones in exponent and mantissa.
    AllOnesNan,
    /// Finite, unsigned zero: the negative-zero code 0x80 is the only NaN.
    NegativeZeroNan,
    /// Finite, no NaN: every code is a number.
    None,
    /// Exponent only, unsigned: the value is 2^(code - bias), and all ones is NaN.
    ExponentOnly,
}

/// The layout of a minifloat code: sign (unless exponent-only), exponent, mantissa.
#[derive(Clone, Copy)]
struct Format {
    bits: u32,
    mantissa: u32,
    bias: i32,
    specials: Specials,
}

impl Format {
    /// The bits a code uses.
    const fn mask(&self) -> u8 {
        (0xffu16 >> (8 - self.bits)) as u8
    }

    const fn sign_bit(&self) -> u8 {
        match self.specials {
            Specials::ExponentOnly => 0,
            _ => 1 << (self.bits - 1),
        }
    }

    fn is_nan(&self, code: u8) -> bool {
        let magnitude = code & !self.sign_bit() & self.mask();
        let top_exponent = self.top_exponent();
        match self.specials {
            Specials::Ieee => {
                magnitude & top_exponent == top_exponent && magnitude & !top_exponent != 0
            }
            Specials::AllOnesNan => magnitude == self.mask() >> 1,
            Specials::NegativeZeroNan => code == self.sign_bit(),
            Specials::None => false,
            Specials::ExponentOnly => code == 0xff,
        }
    }

    fn is_infinite(&self, code: u8) -> bool {
        let magnitude = code & !self.sign_bit() & self.mask();
        self.specials == Specials::Ieee && magnitude == self.top_exponent()
    }

    /// The exact value of `code`.
    fn value(&self, code: u8) -> f32 {
        let code = code & self.mask();
        let negative = code & self.sign_bit() != 0;
        let sign = if negative { -1.0 } else { 1.0 };
        if self.is_nan(code) {
            // Negated, not multiplied: a product's NaN sign is the hardware's choice.
            return if negative { -f32::NAN } else { f32::NAN };
        }
        if self.is_infinite(code) {
            return sign * f32::INFINITY;
        }
        let magnitude = code & !self.sign_bit();
        if self.specials == Specials::ExponentOnly {
            return pow2(magnitude as i32 - self.bias);
        }
        let exponent = (magnitude >> self.mantissa) as i32;
        let fraction = (magnitude & ((1 << self.mantissa) - 1)) as u32;
        // Normal numbers have the implicit leading one; subnormals have exponent 1 without.
        let (significand, exponent) = if exponent == 0 {
            (fraction, 1)
        } else {
            (fraction | 1 << self.mantissa, exponent)
        };
        // A small integer times a power of two: exact in f32.
        sign * significand as f32 * pow2(exponent - self.bias - self.mantissa as i32)
    }

    /// The code nearest to `x`, ties to the even code; NaN and out-of-range values become
    /// what ml_dtypes makes of them.
    fn nearest(&self, x: f32) -> u8 {
        let sign = if x.is_sign_negative() {
            self.sign_bit()
        } else {
            0
        };
        if x.is_nan() {
            return self.nan_code(sign);
        }
        if self.specials == Specials::ExponentOnly {
            return exponent_of(x);
        }
        // Codes of one sign grow with their value, up to the largest finite one.
        let top = (0..=self.mask() & !self.sign_bit())
            .rev()
            .find(|&c| !self.is_nan(c) && !self.is_infinite(c))
            .unwrap_or(0);
        let magnitude = x.abs();
        // The first code whose value is at least the magnitude, by bisection.
        let (mut low, mut high) = (0u16, u16::from(top) + 1);
        while low < high {
            let middle = (low + high) / 2;
            if self.value(middle as u8) < magnitude {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        let above = (low <= u16::from(top)).then_some(low as u8);
        let code = match above {
            Some(0) => 0,
            Some(above) => {
                let below = above - 1;
                let (low, high) = (magnitude - self.value(below), self.value(above) - magnitude);
                match low.partial_cmp(&high) {
                    Some(Ordering::Less) => below,
                    Some(Ordering::Greater) => above,
                    _ if below % 2 == 0 => below,
                    _ => above,
                }
            }
            None => {
                // Past the largest finite value: up to halfway to the next step it rounds
                // down (at halfway, to the even code).
                let max = self.value(top);
                let halfway = max + (max - self.value(top.saturating_sub(1))) / 2.0;
                if magnitude < halfway || magnitude == halfway && top % 2 == 0 {
                    top
                } else {
                    return self.overflow_code(sign, top);
                }
            }
        };
        if code == 0 && self.specials == Specials::NegativeZeroNan {
            // No negative zero.
            return 0;
        }
        code | sign
    }

    /// The code ml_dtypes gives a NaN of this sign.
    fn nan_code(&self, sign: u8) -> u8 {
        match self.specials {
            // The quiet NaN: top exponent, top mantissa bit.
            Specials::Ieee => sign | self.top_exponent() | 1 << (self.mantissa - 1),
            Specials::AllOnesNan => sign | (self.mask() >> 1),
            Specials::NegativeZeroNan => self.sign_bit(),
            // No NaN: ml_dtypes gives the zero of the other sign.
            Specials::None => sign ^ self.sign_bit(),
            Specials::ExponentOnly => 0xff,
        }
    }

    /// The exponent field at its largest, in place.
    fn top_exponent(&self) -> u8 {
        self.mask() >> 1 >> self.mantissa << self.mantissa
    }

    fn overflow_code(&self, sign: u8, top: u8) -> u8 {
        match self.specials {
            Specials::Ieee => sign | self.top_exponent(),
            Specials::AllOnesNan | Specials::NegativeZeroNan | Specials::ExponentOnly => {
                self.nan_code(sign)
            }
            Specials::None => sign | top,
        }
    }
}

/// The power of two (code c is 2^(c - 127)) nearest to `x` as ml_dtypes rounds it: the
/// binary32 exponent, one up from the midpoint on; a subnormal past 2^-127 is 2^-126;
/// zero, negative numbers, NaN and what is past 2^127 are NaN (0xff).
fn exponent_of(x: f32) -> u8 {
    if x.is_nan() || x <= 0.0 {
        return 0xff;
    }
    let (exponent, fraction) = (x.to_bits() >> 23, x.to_bits() & 0x7f_ffff);
    let half = 0x40_0000;
    let code = if exponent == 0 {
        u32::from(fraction > half)
    } else {
        exponent + u32::from(fraction >= half)
    };
    code.min(0xff) as u8
}

/// 2^k as a `f32`, exact for every k from -149 to 127.
fn pow2(k: i32) -> f32 {
    if k >= -126 {
        f32::from_bits(((k + 127) as u32) << 23)
    } else {
        f32::from_bits(1 << (k + 149))
    }
}

/// What the crate needs of every minifloat: its code and its exact value.
pub(crate) trait Minifloat: Copy {
    /// Codes, `2^bits`.
    const CODES: u16;
    fn from_code(code: u8) -> Self;
    fn value(self) -> f32;
    /// The NaN that `"NaN"` names: the registry's code, which is ml_dtypes' NaN; `None`
    /// for a type without NaN.
    fn nan() -> Option<Self>;
    /// The code a fill value of 0 stands for in a type that holds no zero
    /// (`float8_e8m0fnu`: tensorstore writes 0 and reads its unwritten chunks as 0x00).
    fn zero_fill() -> Option<Self>;
}

macro_rules! minifloat {
    ($(#[$doc:meta])* $name:ident, $bits:literal bits, mantissa $mantissa:literal,
     bias $bias:literal, $specials:ident, derive($($derive:ident),*)) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Default, bytemuck::Zeroable, $(bytemuck::$derive),*)]
        #[repr(transparent)]
        pub struct $name(u8);

        impl $name {
            const FORMAT: Format = Format {
                bits: $bits,
                mantissa: $mantissa,
                bias: $bias,
                specials: Specials::$specials,
            };

            /// Bits of a code.
            pub const BITS: u32 = $bits;

            /// The value of code `bits`; bits above [`BITS`](Self::BITS) are cleared.
            #[must_use]
            pub const fn from_bits(bits: u8) -> Self {
                $name(bits & Self::FORMAT.mask())
            }

            /// The code, its unused high bits zero.
            #[must_use]
            pub const fn to_bits(self) -> u8 {
                self.0
            }

            /// The exact value as a `f32`; NaN codes give a NaN of the code's sign.
            #[must_use]
            pub fn to_f32(self) -> f32 {
                Self::FORMAT.value(self.0)
            }

            /// The nearest code to `x`, ties to even, as ml_dtypes converts: values past
            /// the largest finite one become infinity where the type has one, NaN where it
            /// has no infinity, and the largest finite value where it has neither; NaN
            /// becomes the type's NaN (for the 6- and 4-bit types, which have none, zero of
            /// the other sign). `float8_e8m0fnu` rounds midpoints up, and has NaN for zero
            /// and negative numbers.
            #[must_use]
            pub fn from_f32(x: f32) -> Self {
                $name(Self::FORMAT.nearest(x))
            }

            /// Whether this is a NaN code.
            #[must_use]
            pub fn is_nan(self) -> bool {
                Self::FORMAT.is_nan(self.0)
            }
        }

        impl Minifloat for $name {
            const CODES: u16 = 1 << $bits;
            fn from_code(code: u8) -> Self {
                Self::from_bits(code)
            }
            fn value(self) -> f32 {
                self.to_f32()
            }
            fn nan() -> Option<Self> {
                Some(Self::from_f32(f32::NAN)).filter(|x| x.is_nan())
            }
            fn zero_fill() -> Option<Self> {
                (Self::FORMAT.specials == Specials::ExponentOnly).then_some($name(0))
            }
        }

        impl From<$name> for f32 {
            fn from(x: $name) -> f32 {
                x.to_f32()
            }
        }

        impl From<$name> for f64 {
            fn from(x: $name) -> f64 {
                x.to_f32().into()
            }
        }

        impl PartialEq for $name {
            fn eq(&self, other: &Self) -> bool {
                self.to_f32() == other.to_f32()
            }
        }

        impl PartialOrd for $name {
            fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
                self.to_f32().partial_cmp(&other.to_f32())
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.to_f32(), f)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&self.to_f32(), f)
            }
        }
    };
}

minifloat! {
    /// `float8_e3m4`: 3 exponent bits (bias 3), 4 mantissa bits, with infinities and NaNs.
    Float8E3M4, 8 bits, mantissa 4, bias 3, Ieee, derive(Pod)
}
minifloat! {
    /// `float8_e4m3`: 4 exponent bits (bias 7), 3 mantissa bits, with infinities and NaNs.
    Float8E4M3, 8 bits, mantissa 3, bias 7, Ieee, derive(Pod)
}
minifloat! {
    /// `float8_e4m3fn`: 4 exponent bits (bias 7), 3 mantissa bits, no infinities; NaN is
    /// `S.1111.111`.
    Float8E4M3FN, 8 bits, mantissa 3, bias 7, AllOnesNan, derive(Pod)
}
minifloat! {
    /// `float8_e4m3fnuz`: 4 exponent bits (bias 8), 3 mantissa bits, no infinities, no
    /// negative zero; NaN is 0x80.
    Float8E4M3FNUZ, 8 bits, mantissa 3, bias 8, NegativeZeroNan, derive(Pod)
}
minifloat! {
    /// `float8_e4m3b11fnuz`: 4 exponent bits (bias 11), 3 mantissa bits, no infinities, no
    /// negative zero; NaN is 0x80.
    Float8E4M3B11FNUZ, 8 bits, mantissa 3, bias 11, NegativeZeroNan, derive(Pod)
}
minifloat! {
    /// `float8_e5m2`: 5 exponent bits (bias 15), 2 mantissa bits, with infinities and NaNs.
    Float8E5M2, 8 bits, mantissa 2, bias 15, Ieee, derive(Pod)
}
minifloat! {
    /// `float8_e5m2fnuz`: 5 exponent bits (bias 16), 2 mantissa bits, no infinities, no
    /// negative zero; NaN is 0x80.
    Float8E5M2FNUZ, 8 bits, mantissa 2, bias 16, NegativeZeroNan, derive(Pod)
}
minifloat! {
    /// `float8_e8m0fnu`: an unsigned power of two 2^(code - 127); no zero, NaN is 0xff.
    Float8E8M0FNU, 8 bits, mantissa 0, bias 127, ExponentOnly, derive(Pod)
}
minifloat! {
    /// `float6_e2m3fn`: 2 exponent bits (bias 1), 3 mantissa bits in the low 6 bits;
    /// finite, no NaN.
    Float6E2M3FN, 6 bits, mantissa 3, bias 1, None, derive(NoUninit)
}
minifloat! {
    /// `float6_e3m2fn`: 3 exponent bits (bias 3), 2 mantissa bits in the low 6 bits;
    /// finite, no NaN.
    Float6E3M2FN, 6 bits, mantissa 2, bias 3, None, derive(NoUninit)
}
minifloat! {
    /// `float4_e2m1fn`: 2 exponent bits (bias 1), 1 mantissa bit in the low 4 bits;
    /// finite, no NaN.
    Float4E2M1FN, 4 bits, mantissa 1, bias 1, None, derive(NoUninit)
}
