//! Extension data types through `decode_dyn`, `encode_dyn` and `DynArray::full`: exact
//! bytes, the meaning of unused bits, text and records, and every error with its numbers.

use std::num::NonZeroUsize;

use half::f16;
use ndarray::{ArrayD, ArrayView, CowArray, ShapeBuilder, arr0, arr1, array};
use num_complex::Complex;
use serde_json::json;
use zarr_bytes::minifloat::{Float4E2M1FN, Float6E3M2FN, Float8E4M3FN, Float8E5M2};
use zarr_bytes::{
    BytesCodec, BytesDecode, BytesEncode, BytesView, DataType, DynArray, Endian, Error,
    FixedLength, MetadataError, RawArray, ScaleFactor, StructArray, TimeUnit,
};

const LITTLE: BytesCodec = BytesCodec::new(Endian::Little);
const BIG: BytesCodec = BytesCodec::new(Endian::Big);

fn utf32(length_bytes: usize) -> DataType {
    DataType::fixed_length_utf32(length_bytes).unwrap()
}

fn nonzero(n: usize) -> NonZeroUsize {
    NonZeroUsize::new(n).unwrap()
}

/// `fixed_length_utf32` values of `length_bytes` bytes each.
fn strings(values: ArrayD<String>, length_bytes: usize) -> DynArray {
    DynArray::FixedLengthUtf32(
        FixedLength::<String>::new(values, nonzero(length_bytes / 4)).unwrap(),
    )
}

/// Raw elements whose bytes are the last axis of `bytes`.
fn records(bytes: ArrayD<u8>) -> RawArray {
    RawArray::new(bytes).unwrap()
}

#[test]
fn sub_byte_integers_ignore_high_bits_and_write_them_zero() {
    let bytes = [0x0f, 0xff, 0x07, 0x08, 0xf8, 0x30];
    let d = BytesCodec::default()
        .decode_dyn(&bytes, &DataType::Int4, &[6])
        .unwrap();
    assert_eq!(
        d,
        DynArray::Int4(arr1(&[-1i8, -1, 7, -8, -8, 0]).into_dyn())
    );
    assert_eq!(
        BytesCodec::default().encode_dyn(&d).unwrap(),
        [0x0f, 0x0f, 0x07, 0x08, 0x08, 0x00]
    );
    let d = LITTLE
        .decode_dyn(&[0xfe, 0x03, 0x01], &DataType::Int2, &[3])
        .unwrap();
    assert_eq!(d, DynArray::Int2(arr1(&[-2i8, -1, 1]).into_dyn()));
    assert_eq!(LITTLE.encode_dyn(&d).unwrap(), [0x02, 0x03, 0x01]);
    let d = LITTLE
        .decode_dyn(&[0xf3, 0x1f], &DataType::UInt4, &[2])
        .unwrap();
    assert_eq!(d, DynArray::UInt4(arr1(&[3u8, 15]).into_dyn()));
    let d = LITTLE.decode_dyn(&[0xff], &DataType::UInt2, &[1]).unwrap();
    assert_eq!(d, DynArray::UInt2(arr1(&[3u8]).into_dyn()));
    assert_eq!(LITTLE.encode_dyn(&d).unwrap(), [3]);

    // Values that do not fit are errors with their index, on every sub-byte type.
    for (d, index, value) in [
        (DynArray::Int4(arr1(&[1i8, 7, 9]).into_dyn()), 2, 9),
        (DynArray::Int4(arr1(&[-9i8]).into_dyn()), 0, -9),
        (DynArray::Int2(arr1(&[0i8, 2]).into_dyn()), 1, 2),
        (DynArray::UInt4(arr1(&[16u8]).into_dyn()), 0, 16),
        (DynArray::UInt2(arr1(&[3u8, 4]).into_dyn()), 1, 4),
    ] {
        let t = d.data_type();
        let e = LITTLE.encode_dyn(&d).unwrap_err();
        assert!(
            matches!(&e, Error::OutOfRange { data_type, index: i, value: v }
                if *data_type == t && *i == index && *v == value),
            "{e}"
        );
    }
    assert_eq!(
        LITTLE
            .encode_dyn(&DynArray::Int4(arr1(&[9i8]).into_dyn()))
            .unwrap_err()
            .to_string(),
        "value 9 at index 0 does not fit int4"
    );
}

#[test]
fn minifloats_hold_codes_and_exact_values() {
    let x = Float8E4M3FN::from_bits(0x7e);
    assert_eq!(x.to_f32().to_bits(), 448.0f32.to_bits());
    assert_eq!(Float8E4M3FN::from_bits(0x01).to_f32(), 2f32.powi(-9));
    assert!(Float8E4M3FN::from_bits(0xff).is_nan());
    assert_eq!(Float8E5M2::from_bits(0x7c).to_f32(), f32::INFINITY);
    assert_eq!(Float4E2M1FN::from_bits(0xf7).to_bits(), 0x07);
    assert_eq!(Float4E2M1FN::from_bits(0x07).to_f32(), 6.0);
    assert_eq!(Float6E3M2FN::from_bits(0xff).to_f32(), -28.0);
    // Typed arrays of minifloats use every typed path, in any layout.
    let a = ArrayD::from_shape_fn(vec![3, 4].f(), |i| {
        Float4E2M1FN::from_bits((i[0] * 4 + i[1]) as u8)
    });
    let bytes = a.to_zarr_bytes(Endian::Big);
    assert_eq!(bytes, (0..12).collect::<Vec<u8>>());
    // Decoding clears the unused bits; a view cannot, so it declines and a copy is made.
    let high = [0xf1u8, 0x22, 0x0f];
    let back = ArrayD::<Float4E2M1FN>::from_zarr_bytes(&high, vec![3], Endian::Little).unwrap();
    assert_eq!(back.map(|x| x.to_bits()).as_slice().unwrap(), &[1, 2, 15]);
    assert!(matches!(
        ArrayView::<Float4E2M1FN, _>::view_zarr_bytes(&high, 3, Endian::Little),
        Err(Error::NeedsConversion {
            data_type: DataType::Float4E2M1FN,
            ..
        })
    ));
    let cow = CowArray::<Float4E2M1FN, _>::view_zarr_bytes(&high, 3, Endian::Little).unwrap();
    assert_eq!(cow.map(|x| x.to_bits()).as_slice().unwrap(), &[1, 2, 15]);
    // 8-bit codes are every byte: they view.
    let v = ArrayView::<Float8E4M3FN, _>::view_zarr_bytes(&high, 3, Endian::Big).unwrap();
    assert_eq!(v[0].to_bits(), 0xf1);
    // DynArray round trip of the codes.
    let d = LITTLE
        .decode_dyn(&high, &DataType::Float6E3M2FN, &[3])
        .unwrap();
    assert_eq!(LITTLE.encode_dyn(&d).unwrap(), [0x31, 0x22, 0x0f]);
}

#[test]
fn complex_halves_swap_each_part() {
    let a = arr1(&[Complex::new(f16::from_f32(1.0), f16::from_f32(-2.0))]).into_dyn();
    let d = DynArray::from(a.clone());
    assert_eq!(d.data_type(), DataType::ComplexFloat16);
    assert_eq!(BIG.encode_dyn(&d).unwrap(), [0x3c, 0x00, 0xc0, 0x00]);
    assert_eq!(LITTLE.encode_dyn(&d).unwrap(), [0x00, 0x3c, 0x00, 0xc0]);
    let back = BIG
        .decode_dyn(&[0x3c, 0x00, 0xc0, 0x00], &DataType::ComplexFloat16, &[1])
        .unwrap();
    assert_eq!(back, d);
    assert!(matches!(
        BytesCodec::default().validate(&DataType::ComplexBFloat16),
        Err(Error::Metadata(MetadataError::EndianRequired { .. }))
    ));
}

#[test]
fn datetimes_are_i64_with_their_unit() {
    let t = DataType::DateTime64 {
        unit: TimeUnit::Seconds,
        scale_factor: ScaleFactor::new(10).unwrap(),
    };
    let bytes: Vec<u8> = [i64::MIN, -1, 86_400]
        .iter()
        .flat_map(|v| v.to_be_bytes())
        .collect();
    let d = BIG.decode_dyn(&bytes, &t, &[3]).unwrap();
    assert_eq!(
        d,
        DynArray::DateTime64 {
            values: arr1(&[i64::MIN, -1, 86_400]).into_dyn(),
            unit: TimeUnit::Seconds,
            scale_factor: ScaleFactor::new(10).unwrap()
        }
    );
    assert_eq!(d.data_type(), t);
    assert_eq!(BIG.encode_dyn(&d).unwrap(), bytes);
    let little = LITTLE.encode_dyn(&d).unwrap();
    assert_eq!(&little[..8], &i64::MIN.to_le_bytes());
}

#[test]
fn utf32_strings_pad_with_nul_and_check_every_unit() {
    let t = utf32(12);
    let values = array!["😀a".to_string(), "".into(), "a\0b".into()].into_dyn();
    let d = strings(values.clone(), 12);
    let big = BIG.encode_dyn(&d).unwrap();
    assert_eq!(
        big,
        [
            0, 1, 0xf6, 0x00, 0, 0, 0, 0x61, 0, 0, 0, 0, // "😀a" and a NUL unit
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // ""
            0, 0, 0, 0x61, 0, 0, 0, 0, 0, 0, 0, 0x62, // "a\0b": the inner NUL stays
        ]
    );
    assert_eq!(BIG.decode_dyn(&big, &t, &[3]).unwrap(), d);
    let little = LITTLE.encode_dyn(&d).unwrap();
    assert_eq!(&little[..4], &[0x00, 0xf6, 0x01, 0x00]);
    assert_eq!(LITTLE.decode_dyn(&little, &t, &[3]).unwrap(), d);

    // A surrogate or a unit past U+10FFFF is an error at its byte offset.
    for (unit, at) in [(0xd800u32, 1), (0x0011_0000, 2)] {
        let mut bytes = big.clone();
        bytes[at * 4..at * 4 + 4].copy_from_slice(&unit.to_be_bytes());
        let e = BIG.decode_dyn(&bytes, &t, &[3]).unwrap_err();
        assert!(
            matches!(e, Error::InvalidCodeUnit { offset, value } if offset == at * 4 && value == unit),
            "{e}"
        );
    }
    // Four characters do not fit three units: such strings cannot be made.
    let e = FixedLength::<String>::new(
        array!["abc".to_string(), "abcd".into()].into_dyn(),
        nonzero(3),
    )
    .unwrap_err();
    assert!(
        matches!(&e, Error::TooLong { data_type, index: 1, len: 4, max: 3 } if *data_type == t),
        "{e}"
    );
    assert!(matches!(
        LITTLE.decode_dyn(&[0; 11], &t, &[1]),
        Err(Error::LengthMismatch {
            expected: 12,
            actual: 11
        })
    ));
}

#[test]
fn null_terminated_bytes_keep_inner_nuls_and_never_swap() {
    let t = DataType::null_terminated_bytes(4).unwrap();
    let bytes = [b'a', 0, b'b', 0, 0, 0, 0, 0, 0xff, 0xfe, 0xfd, 0xfc];
    let d = BIG.decode_dyn(&bytes, &t, &[3]).unwrap();
    let values = arr1(&[b"a\0b".to_vec(), vec![], vec![0xff, 0xfe, 0xfd, 0xfc]]).into_dyn();
    assert_eq!(
        d,
        DynArray::NullTerminatedBytes(FixedLength::<Vec<u8>>::new(values, nonzero(4)).unwrap())
    );
    assert_eq!(LITTLE.encode_dyn(&d).unwrap(), bytes);
    assert!(BytesCodec::default().validate(&t).is_ok());
    let e =
        FixedLength::<Vec<u8>>::new(arr0(b"hello".to_vec()).into_dyn(), nonzero(4)).unwrap_err();
    assert!(
        matches!(
            e,
            Error::TooLong {
                index: 0,
                len: 5,
                max: 4,
                ..
            }
        ),
        "{e}"
    );
    // raw_bytes: all bytes, a trailing axis.
    let raw = DataType::raw_bytes(2).unwrap();
    let d = BytesCodec::default()
        .decode_dyn(&[1, 0, 0, 0], &raw, &[2])
        .unwrap();
    assert_eq!(
        d,
        DynArray::RawBytes(records(array![[1u8, 0], [0, 0]].into_dyn()))
    );
    assert_eq!(d.shape(), &[2]);
    assert_eq!(d.data_type(), raw);
}

fn sample_struct() -> StructArray {
    let inner = StructArray::new(vec![
        (
            "z".into(),
            DynArray::from(arr1(&[Complex::new(1.0f32, -1.0), Complex::new(0.5, 2.0)]).into_dyn()),
        ),
        (
            "flag".into(),
            DynArray::from(arr1(&[true, false]).into_dyn()),
        ),
    ])
    .unwrap();
    StructArray::new(vec![
        (
            "id".into(),
            DynArray::from(arr1(&[1u16, 0x0203]).into_dyn()),
        ),
        ("inner".into(), DynArray::Struct(inner)),
        (
            "name".into(),
            strings(arr1(&["é".to_string(), "".into()]).into_dyn(), 4),
        ),
    ])
    .unwrap()
}

#[test]
fn structs_pack_fields_by_their_own_rules() {
    let s = sample_struct();
    let t = s.data_type();
    assert_eq!(t.size(), 2 + 8 + 1 + 4);
    let d = DynArray::Struct(s.clone());
    let big = BIG.encode_dyn(&d).unwrap();
    let record0 = [
        0, 1, // id
        0x3f, 0x80, 0, 0, 0xbf, 0x80, 0, 0, // z
        1, // flag
        0, 0, 0, 0xe9, // "é"
    ];
    assert_eq!(&big[..15], &record0);
    assert_eq!(&big[15..17], &[2, 3]);
    assert_eq!(BIG.decode_dyn(&big, &t, &[2]).unwrap(), d);
    // Each field swaps on its own; the bool and the bytes of a struct never move.
    let little = LITTLE.encode_dyn(&d).unwrap();
    assert_eq!(
        &little[..15],
        &[1, 0, 0, 0, 0x80, 0x3f, 0, 0, 0x80, 0xbf, 1, 0xe9, 0, 0, 0]
    );
    // Fields are found by name.
    assert!(matches!(s.field("id"), Some(DynArray::UInt16(_))));
    assert!(s.field("nope").is_none());
    let names: Vec<&str> = s.fields().map(|(n, _)| n).collect();
    assert_eq!(names, ["id", "inner", "name"]);

    // An invalid byte inside a nested field is reported at its offset in the chunk.
    let mut bad = big.clone();
    bad[15 + 10] = 7; // the second record's flag
    let e = BIG.decode_dyn(&bad, &t, &[2]).unwrap_err();
    assert!(
        matches!(
            e,
            Error::InvalidBool {
                offset: 25,
                value: 7
            }
        ),
        "{e}"
    );
    let mut bad = big.clone();
    bad[15 + 11..15 + 15].copy_from_slice(&0xdfffu32.to_be_bytes());
    let e = BIG.decode_dyn(&bad, &t, &[2]).unwrap_err();
    assert!(
        matches!(
            e,
            Error::InvalidCodeUnit {
                offset: 26,
                value: 0xdfff
            }
        ),
        "{e}"
    );
    assert!(matches!(
        BIG.decode_dyn(&big[1..], &t, &[2]),
        Err(Error::LengthMismatch {
            expected: 30,
            actual: 29
        })
    ));
}

#[test]
fn struct_arrays_refuse_what_no_struct_is() {
    assert!(matches!(
        StructArray::new(vec![]),
        Err(Error::Metadata(MetadataError::EmptyStruct))
    ));
    let a = || DynArray::from(arr1(&[1u8, 2]).into_dyn());
    assert!(matches!(
        StructArray::new(vec![("x".into(), a()), ("x".into(), a())]),
        Err(Error::Metadata(MetadataError::DuplicateField { name })) if &*name == "x"
    ));
    let e = StructArray::new(vec![
        ("x".into(), a()),
        ("y".into(), DynArray::from(arr1(&[1u8, 2, 3]).into_dyn())),
    ])
    .unwrap_err();
    assert!(
        matches!(&e, Error::FieldShapeMismatch { name, expected, actual }
            if &**name == "y" && **expected == [2] && **actual == [3]),
        "{e}"
    );
    // Nesting past the limit.
    let mut s = StructArray::new(vec![("x".into(), a())]).unwrap();
    let mut result = Ok(());
    for _ in 0..DataType::MAX_DEPTH + 1 {
        match StructArray::new(vec![("s".into(), DynArray::Struct(s.clone()))]) {
            Ok(next) => s = next,
            Err(e) => {
                result = Err(e);
                break;
            }
        }
    }
    assert!(matches!(
        result,
        Err(Error::Metadata(MetadataError::NestingTooDeep { .. }))
    ));
}

#[test]
fn full_reads_every_fill_value_form() {
    let full = |t: &DataType, v: serde_json::Value| DynArray::full(t, &[2], &v);
    assert_eq!(
        full(&DataType::Int4, json!(-8)).unwrap(),
        DynArray::Int4(arr1(&[-8i8, -8]).into_dyn())
    );
    assert_eq!(
        full(&DataType::Bool, json!(true)).unwrap(),
        DynArray::Bool(arr1(&[true, true]).into_dyn())
    );
    let DynArray::Float64(a) = full(&DataType::Float64, json!("0x7ff8000000000123")).unwrap()
    else {
        panic!()
    };
    assert_eq!(a[0].to_bits(), 0x7ff8_0000_0000_0123);
    let DynArray::Float32(a) = full(&DataType::Float32, json!("-Infinity")).unwrap() else {
        panic!()
    };
    assert_eq!(a[1], f32::NEG_INFINITY);
    let DynArray::Complex64(a) = full(&DataType::Complex64, json!([1.5, "NaN"])).unwrap() else {
        panic!()
    };
    assert_eq!(a[0].re, 1.5);
    assert!(a[0].im.is_nan());
    let DynArray::Float8E4M3FN(a) = full(&DataType::Float8E4M3FN, json!(-448.0)).unwrap() else {
        panic!()
    };
    assert_eq!(a[0].to_bits(), 0xfe);
    let DynArray::Float8E4M3FN(a) = full(&DataType::Float8E4M3FN, json!("NaN")).unwrap() else {
        panic!()
    };
    assert!(a[0].is_nan());
    let DynArray::Float8E5M2(a) = full(&DataType::Float8E5M2, json!(-0.0)).unwrap() else {
        panic!()
    };
    assert_eq!(a[0].to_bits(), 0x80);
    let DynArray::Float4E2M1FN(a) = full(&DataType::Float4E2M1FN, json!("0x0f")).unwrap() else {
        panic!()
    };
    assert_eq!(a[0].to_f32(), -6.0);
    let nat = DataType::TimeDelta64 {
        unit: TimeUnit::Days,
        scale_factor: ScaleFactor::ONE,
    };
    assert!(matches!(full(&nat, json!("NaT")).unwrap(),
        DynArray::TimeDelta64 { values, .. } if values[[1]] == i64::MIN));
    assert!(matches!(full(&utf32(8), json!("hé")).unwrap(),
        DynArray::FixedLengthUtf32(s) if s.values()[[0]] == "hé"));
    let bytes = DataType::null_terminated_bytes(3).unwrap();
    assert!(matches!(full(&bytes, json!("YQAA")).unwrap(),
        DynArray::NullTerminatedBytes(s) if s.values()[[0]] == b"a"));
    assert_eq!(
        full(&DataType::raw_bits(16).unwrap(), json!([1, 2])).unwrap(),
        DynArray::RawBits(records(array![[1u8, 2], [1, 2]].into_dyn()))
    );
    assert_eq!(
        full(&DataType::raw_bytes(2).unwrap(), json!("AQI=")).unwrap(),
        DynArray::RawBytes(records(array![[1u8, 2], [1, 2]].into_dyn()))
    );
    // A struct: an object per field, or one little-endian record in base64.
    let t: DataType =
        serde_json::from_value(json!({"name": "struct", "configuration": {"fields": [
        {"name": "a", "data_type": "int16"}, {"name": "b", "data_type": "bool"}]}}))
        .unwrap();
    let by_field = full(&t, json!({"a": -2, "b": true})).unwrap();
    assert_eq!(
        LITTLE.encode_dyn(&by_field).unwrap(),
        [0xfe, 0xff, 1, 0xfe, 0xff, 1]
    );
    assert_eq!(full(&t, json!("/v8B")).unwrap(), by_field);
}

#[test]
fn fill_values_of_the_wrong_form_are_named_errors() {
    let cases = [
        (DataType::Int4, json!(9)),
        (DataType::UInt2, json!(4)),
        (DataType::Int8, json!(128)),
        (DataType::Int8, json!(1.5)),
        (DataType::Bool, json!(0)),
        (DataType::Float32, json!("nan")),
        (DataType::Float32, json!("0x1234567890")),
        (DataType::Complex64, json!([1.0])),
        (DataType::Float8E4M3FN, json!(0.3)),
        (DataType::Float8E4M3FN, json!("Infinity")),
        (DataType::Float4E2M1FN, json!("NaN")),
        (DataType::Float4E2M1FN, json!("0x10")),
        (utf32(8), json!("abc")),
        (utf32(8), json!(1)),
        (DataType::null_terminated_bytes(1).unwrap(), json!("YWI=")),
        (DataType::raw_bits(16).unwrap(), json!([1, 2, 3])),
        (DataType::raw_bytes(2).unwrap(), json!("not base64!")),
        (
            DataType::DateTime64 {
                unit: TimeUnit::Seconds,
                scale_factor: ScaleFactor::ONE,
            },
            json!("2020-01-01"),
        ),
    ];
    for (t, value) in cases {
        let e = DynArray::full(&t, &[3], &value).unwrap_err();
        assert!(
            matches!(&e, Error::Metadata(MetadataError::InvalidFillValue { data_type, value: v, .. })
                if *data_type == t && &**v == value.to_string().as_str()),
            "{t} {value}: {e}"
        );
    }
    let t: DataType =
        serde_json::from_value(json!({"name": "struct", "configuration": {"fields": [
        {"name": "a", "data_type": "int16"}]}}))
        .unwrap();
    for value in [
        json!({}),
        json!({"a": 1, "b": 2}),
        json!({"a": "x"}),
        json!(7),
        json!("AAAA"),
    ] {
        let e = DynArray::full(&t, &[1], &value).unwrap_err();
        assert!(
            matches!(e, Error::Metadata(MetadataError::InvalidFillValue { .. })),
            "{value}: {e}"
        );
    }
    // The shape is checked first; a type of partial bytes cannot be made.
    assert!(matches!(
        DynArray::full(&DataType::Int64, &[usize::MAX, 2], &json!(0)),
        Err(Error::ShapeOverflow { .. })
    ));
    assert!(matches!(
        DataType::raw_bits(12),
        Err(Error::Metadata(MetadataError::InvalidRawBits { .. }))
    ));
}

#[test]
fn permuted_axes_encode_as_the_transposed_arrays() {
    let a = ArrayD::from_shape_fn(vec![2, 3], |i| (10 * i[0] + i[1]) as u16 + 0x0100);
    let text = a.map(|x| format!("{x}"));
    let raw = a.map(|x| x.to_le_bytes());
    let record = |a: &ArrayD<u16>, text: &ArrayD<String>| {
        let fields = vec![
            ("n".into(), DynArray::from(a.clone())),
            ("s".into(), strings(text.clone(), 12)),
        ];
        DynArray::Struct(StructArray::new(fields).unwrap())
    };
    let kinds = |a: &ArrayD<u16>, text: &ArrayD<String>, raw: &ArrayD<[u8; 2]>| {
        vec![
            DynArray::from(a.clone()),
            DynArray::from(raw.clone()),
            strings(text.clone(), 12),
            record(a, text),
        ]
    };
    let (at, textt, rawt) = (
        a.t().as_standard_layout().into_owned(),
        text.t().as_standard_layout().into_owned(),
        raw.t().as_standard_layout().into_owned(),
    );
    for (d, want) in kinds(&a, &text, &raw)
        .into_iter()
        .zip(kinds(&at, &textt, &rawt))
    {
        let permuted = d.clone().permuted_axes(&[1, 0]).unwrap();
        assert_eq!(permuted.shape(), &[3, 2]);
        assert_eq!(permuted.data_type(), d.data_type());
        for codec in [LITTLE, BIG] {
            assert_eq!(
                codec.encode_dyn(&permuted).unwrap(),
                codec.encode_dyn(&want).unwrap(),
                "{}",
                d.data_type()
            );
        }
        for order in [&[0, 0][..], &[0], &[0, 2], &[0, 1, 2]] {
            let e = d.clone().permuted_axes(order).unwrap_err();
            assert!(
                matches!(&e, Error::InvalidAxisOrder { order: o, ndim: 2 } if **o == *order),
                "{e}"
            );
        }
    }
}

/// Real numbers as `f64`: exactly, but for 64-bit integers past 2^53, which round; `bool`
/// as 0 and 1, datetimes as their counts; every type of the table but the complex ones.
#[test]
fn real_values_as_f64() {
    let big = DynArray::from(arr1(&[u64::MAX, 3]).into_dyn());
    assert_eq!(
        big.to_f64(),
        Some(arr1(&[18446744073709551616.0, 3.0]).into_dyn())
    );
    let flags = DynArray::from(arr1(&[true, false]).into_dyn());
    assert_eq!(flags.to_f64(), Some(arr1(&[1.0, 0.0]).into_dyn()));
    let half = DynArray::from(arr1(&[f16::from_f32(-0.5)]).into_dyn());
    assert_eq!(half.to_f64(), Some(arr1(&[-0.5]).into_dyn()));
    let nibbles = LITTLE
        .decode_dyn(&[0x0f, 0xf8], &DataType::Int4, &[2])
        .unwrap();
    assert_eq!(nibbles.to_f64(), Some(arr1(&[-1.0, -8.0]).into_dyn()));
    let minifloat = LITTLE
        .decode_dyn(&[0x7f], &DataType::Float8E4M3FN, &[1])
        .unwrap();
    assert!(minifloat.to_f64().unwrap()[0].is_nan());
    let t = DataType::DateTime64 {
        unit: TimeUnit::Seconds,
        scale_factor: ScaleFactor::ONE,
    };
    let nat = DynArray::full(&t, &[1], &json!("NaT")).unwrap();
    assert_eq!(nat.to_f64(), Some(arr1(&[i64::MIN as f64]).into_dyn()));
    assert_eq!(
        strings(arr1(&["a".to_string()]).into_dyn(), 4).to_f64(),
        None
    );
    for t in DataType::FIXED {
        let zero = vec![0u8; t.size()];
        let d = LITTLE.decode_dyn(&zero, t, &[1]).unwrap();
        let complex = t.to_string().starts_with("complex");
        assert_eq!(d.to_f64().is_none(), complex, "{t}");
    }
}
