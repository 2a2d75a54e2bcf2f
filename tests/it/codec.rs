//! Codec metadata, data type names and the runtime-typed array.

use ndarray::{ArrayD, arr1, arr2};
use zarr_bytes::{BytesCodec, DataType, DynArray, Endian, Error, MetadataError, RawArray};

#[test]
fn accepted_codec_json() {
    let table: &[(&str, Option<Endian>)] = &[
        (
            r#"{"name": "bytes", "configuration": {"endian": "little"}}"#,
            Some(Endian::Little),
        ),
        (
            r#"{"name": "bytes", "configuration": {"endian": "big"}}"#,
            Some(Endian::Big),
        ),
        (
            r#"{"configuration": {"endian": "big"}, "name": "bytes"}"#,
            Some(Endian::Big),
        ),
        (r#"{"name": "bytes"}"#, None),
        (r#"{"name": "bytes", "configuration": {}}"#, None),
        (
            r#"{"name": "endian", "configuration": {"endian": "little"}}"#,
            Some(Endian::Little),
        ),
        (r#"{"name": "endian"}"#, None),
        (r#""bytes""#, None),
    ];
    for (json, endian) in table {
        let codec: BytesCodec =
            serde_json::from_str(json).unwrap_or_else(|e| panic!("{json}: {e}"));
        assert_eq!(codec.endian, *endian, "{json}");
    }
}

#[test]
fn rejected_codec_json() {
    let table: &[(&str, &str)] = &[
        (
            r#"{"name": "bytes", "configuration": {"endian": "native"}}"#,
            "native",
        ),
        (
            r#"{"name": "bytes", "configuration": {"endian": "LITTLE"}}"#,
            "LITTLE",
        ),
        (
            r#"{"name": "bytes", "configuration": {"endian": 1}}"#,
            "integer",
        ),
        (
            r#"{"name": "bytes", "configuration": {"endian": null}}"#,
            "null",
        ),
        (
            r#"{"name": "bytes", "configuration": {"endian": "big", "order": "C"}}"#,
            "order",
        ),
        (
            r#"{"name": "bytes", "configuration": {"endian": "big", "endian": "big"}}"#,
            "duplicate",
        ),
        (
            r#"{"name": "bytes", "configuration": "big"}"#,
            "configuration object",
        ),
        (
            r#"{"name": "bytes", "configuration": ["big"]}"#,
            "configuration object",
        ),
        (
            r#"{"name": "bytes", "configuration": null}"#,
            "configuration object",
        ),
        (
            r#"{"configuration": {"endian": "big"}}"#,
            "missing field `name`",
        ),
        (
            r#"{"name": "gzip", "configuration": {"level": 1}}"#,
            "unknown field `level`",
        ),
        (r#"{"name": "gzip"}"#, "\"gzip\""),
        (r#"{"name": "Bytes"}"#, "\"Bytes\""),
        (r#"{"name": 3}"#, "integer"),
        (
            r#"{"name": "bytes", "must_understand": false}"#,
            "must_understand",
        ),
        (r#""gzip""#, "\"gzip\""),
        (r#"["bytes"]"#, "a bytes codec"),
        ("7", "a bytes codec"),
    ];
    for (json, says) in table {
        let e = serde_json::from_str::<BytesCodec>(json)
            .expect_err(json)
            .to_string();
        assert!(e.contains(says), "{json}: {e:?} does not say {says:?}");
    }
}

#[test]
fn codec_json_is_written_canonically() {
    let little = serde_json::to_value(BytesCodec::new(Endian::Little)).unwrap();
    assert_eq!(
        little,
        serde_json::json!({"name": "bytes", "configuration": {"endian": "little"}})
    );
    let big = serde_json::to_string(&BytesCodec::new(Endian::Big)).unwrap();
    assert_eq!(big, r#"{"name":"bytes","configuration":{"endian":"big"}}"#);
    assert_eq!(
        serde_json::to_string(&BytesCodec::default()).unwrap(),
        r#"{"name":"bytes"}"#
    );
    // The legacy name reads and is written as "bytes".
    let old: BytesCodec =
        serde_json::from_str(r#"{"name": "endian", "configuration": {"endian": "big"}}"#).unwrap();
    assert_eq!(serde_json::to_string(&old).unwrap(), big);
}

#[test]
fn data_type_names_round_trip() {
    // Name, bytes per element, whether the endian applies.
    let table = [
        ("bool", 1, false),
        ("int8", 1, false),
        ("int16", 2, true),
        ("int32", 4, true),
        ("int64", 8, true),
        ("uint8", 1, false),
        ("uint16", 2, true),
        ("uint32", 4, true),
        ("uint64", 8, true),
        ("float16", 2, true),
        ("bfloat16", 2, true),
        ("float32", 4, true),
        ("float64", 8, true),
        ("complex64", 8, true),
        ("complex128", 16, true),
        ("r8", 1, false),
        ("r16", 2, false),
        ("r24", 3, false),
        ("r1024", 128, false),
    ];
    for (name, size, applies) in table {
        let t: DataType = name.parse().unwrap();
        assert_eq!(t.to_string(), name);
        assert_eq!(t.size(), size, "{name}");
        assert_eq!(t.endian_applies(), applies, "{name}");
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(json, format!("\"{name}\""));
        assert_eq!(serde_json::from_str::<DataType>(&json).unwrap(), t);
    }
    assert_eq!(
        "r24".parse::<DataType>().unwrap(),
        DataType::raw_bits(24).unwrap()
    );
}

#[test]
fn bad_data_type_names_quote_the_name() {
    for name in [
        "float128", "Float64", "", "int", "bfloat", "raw", "rfoo", "complex",
    ] {
        let e = name.parse::<DataType>().unwrap_err();
        assert!(
            matches!(&e, Error::Metadata(MetadataError::UnknownDataType { name: n }) if &**n == name),
            "{name}: {e:?}"
        );
        assert!(e.to_string().contains(&format!("{name:?}")), "{e}");
    }
    for name in ["r0", "r7", "r", "r-8", "r+8", "r08", "r12", "r8.0"] {
        let e = name.parse::<DataType>().unwrap_err();
        assert!(
            matches!(&e, Error::Metadata(MetadataError::InvalidRawBits { name: n }) if &**n == name),
            "{name}: {e:?}"
        );
    }
    let e = serde_json::from_str::<DataType>("\"float128\"").unwrap_err();
    assert!(e.to_string().contains("float128"));
}

#[test]
fn validate_needs_endian_for_multi_byte_types_only() {
    let none = BytesCodec::default();
    for t in [
        "int16",
        "uint64",
        "float16",
        "float32",
        "complex64",
        "complex128",
    ] {
        let t: DataType = t.parse().unwrap();
        let e = none.validate(&t).unwrap_err();
        assert!(matches!(
            &e,
            Error::Metadata(MetadataError::EndianRequired { data_type }) if *data_type == t
        ));
        assert!(e.to_string().contains(&t.to_string()));
        BytesCodec::new(Endian::Big).validate(&t).unwrap();
    }
    for t in ["bool", "int8", "uint8", "r8", "r16", "r24"] {
        let t: DataType = t.parse().unwrap();
        none.validate(&t).unwrap();
        BytesCodec::new(Endian::Big).validate(&t).unwrap();
        BytesCodec::new(Endian::Little).validate(&t).unwrap();
    }
    // Raw bits that are no whole bytes cannot be made, so no codec meets them.
    for bits in [0, 12] {
        assert!(matches!(
            DataType::raw_bits(bits),
            Err(Error::Metadata(MetadataError::InvalidRawBits { name })) if *name == format!("r{bits}")
        ));
    }
}

#[test]
fn typed_encode_and_decode_validate_first() {
    let none = BytesCodec::default();
    let e = none.encode(&arr1(&[1.0f64])).unwrap_err();
    assert!(matches!(
        e,
        Error::Metadata(MetadataError::EndianRequired {
            data_type: DataType::Float64
        })
    ));
    let e = none.decode::<u32, _>(&[0; 4], 1).unwrap_err();
    assert!(matches!(
        e,
        Error::Metadata(MetadataError::EndianRequired {
            data_type: DataType::UInt32
        })
    ));
    assert_eq!(none.encode(&arr1(&[true, false])).unwrap(), [1, 0]);
    let big = BytesCodec::new(Endian::Big);
    assert_eq!(big.encode(&arr2(&[[1u16], [2]])).unwrap(), [0, 1, 0, 2]);
    assert_eq!(
        big.decode::<u16, _>(&[0, 1, 0, 2], (2, 1)).unwrap(),
        arr2(&[[1u16], [2]])
    );
    // An endian on a single-byte type is accepted and ignored.
    assert_eq!(big.encode(&arr1(&[-1i8])).unwrap(), [0xff]);
}

#[test]
fn try_from_names_both_types() {
    let d = DynArray::from(arr1(&[1u8, 2]).into_dyn());
    let e = ArrayD::<i8>::try_from(d.clone()).unwrap_err();
    assert!(matches!(
        e,
        Error::TypeMismatch {
            expected: DataType::Int8,
            found: DataType::UInt8
        }
    ));
    assert!(
        e.to_string().contains("int8") && e.to_string().contains("uint8"),
        "{e}"
    );
    let e = ArrayD::<[u8; 2]>::try_from(d.clone()).unwrap_err();
    let r16 = DataType::raw_bits(16).unwrap();
    assert!(matches!(
        e,
        Error::TypeMismatch {
            expected,
            found: DataType::UInt8
        } if expected == r16
    ));
    let raw = DynArray::from(arr1(&[[1u8, 2, 3]]).into_dyn());
    assert_eq!(raw.data_type(), DataType::raw_bits(24).unwrap());
    assert_eq!(raw.shape(), &[1]);
    let e = ArrayD::<[u8; 2]>::try_from(raw.clone()).unwrap_err();
    assert_eq!(
        e,
        Error::TypeMismatch {
            expected: r16,
            found: DataType::raw_bits(24).unwrap()
        }
    );
    let back = ArrayD::<[u8; 3]>::try_from(raw).unwrap();
    assert_eq!(back, arr1(&[[1u8, 2, 3]]).into_dyn());
    let typed: ArrayD<u8> = d.try_into().unwrap();
    assert_eq!(typed, arr1(&[1u8, 2]).into_dyn());
}

#[test]
fn decode_dyn_and_encode_dyn_on_every_fixture() {
    let manifest = crate::common::manifest();
    let mut files = 0;
    for case in &manifest.cases {
        let data_type = case.data_type.parse::<DataType>().unwrap();
        for writer in &case.writers {
            let bytes = case.bytes(writer);
            let codec = BytesCodec::new(case.endian);
            let d = codec.decode_dyn(&bytes, &data_type, &case.shape).unwrap();
            assert_eq!(d.data_type(), data_type, "{}", case.name);
            assert_eq!(d.shape(), &case.shape[..], "{}", case.name);
            assert_eq!(codec.encode_dyn(&d).unwrap(), bytes, "{}", case.name);
            // The other byte order changes the bytes exactly when the endian applies.
            let other = match case.endian {
                Endian::Little => Endian::Big,
                Endian::Big => Endian::Little,
            };
            // The other byte order reverses each component exactly when the endian applies.
            let swapped = BytesCodec::new(other).encode_dyn(&d).unwrap();
            let component = match data_type {
                DataType::Complex64 | DataType::Complex128 => data_type.size() / 2,
                _ if data_type.endian_applies() => data_type.size(),
                _ => 1,
            };
            let reversed: Vec<u8> = bytes
                .chunks(component)
                .flat_map(|c| c.iter().rev().copied())
                .collect();
            assert_eq!(swapped, reversed, "{}", case.name);
            files += 1;
        }
    }
    assert_eq!(files, 16 * 24 + 10);
}

#[test]
fn decode_dyn_errors() {
    let codec = BytesCodec::new(Endian::Little);
    let e = codec
        .decode_dyn(&[0; 3], &DataType::Int16, &[2])
        .unwrap_err();
    assert!(matches!(
        e,
        Error::LengthMismatch {
            expected: 4,
            actual: 3
        }
    ));
    let e = codec
        .decode_dyn(&[], &DataType::raw_bits(8).unwrap(), &[usize::MAX, 2])
        .unwrap_err();
    assert!(matches!(e, Error::ShapeOverflow { element_size: 1 }));
    let e = codec
        .decode_dyn(&[], &DataType::raw_bits(64).unwrap(), &[usize::MAX / 4])
        .unwrap_err();
    assert!(matches!(e, Error::ShapeOverflow { element_size: 8 }));
    let e = codec.decode_dyn(&[2], &DataType::Bool, &[1]).unwrap_err();
    assert!(matches!(
        e,
        Error::InvalidBool {
            offset: 0,
            value: 2
        }
    ));
    let e = BytesCodec::default()
        .decode_dyn(&[0; 8], &DataType::Float64, &[1])
        .unwrap_err();
    assert!(matches!(
        e,
        Error::Metadata(MetadataError::EndianRequired {
            data_type: DataType::Float64
        })
    ));
    // A raw bits array without its byte axis, or with an empty one, cannot be made.
    for shape in [vec![], vec![3, 0]] {
        let e = RawArray::new(ArrayD::zeros(shape.clone())).unwrap_err();
        assert_eq!(
            e,
            Error::NoRecordBytes {
                shape: shape.into()
            }
        );
    }
}

#[test]
fn endian_parses_exactly() {
    assert_eq!("little".parse::<Endian>().unwrap(), Endian::Little);
    assert_eq!("big".parse::<Endian>().unwrap(), Endian::Big);
    for bad in ["native", "Big", "LITTLE", "", " big", "<"] {
        let e = bad.parse::<Endian>().unwrap_err();
        assert!(
            matches!(&e, Error::Metadata(MetadataError::InvalidEndian { value }) if &**value == bad),
            "{bad}"
        );
    }
    assert!(
        serde_json::from_str::<Endian>("\"native\"")
            .unwrap_err()
            .to_string()
            .contains("native")
    );
}

/// The values that could once be built invalid are refused where they are made, and a raw
/// array that claims more bytes than memory holds still names its type.
#[test]
fn invalid_values_are_refused_when_made() {
    use std::num::NonZeroUsize;
    use zarr_bytes::{FixedLength, ScaleFactor};
    for bits in [0, 7, 12] {
        assert!(matches!(
            DataType::raw_bits(bits),
            Err(Error::Metadata(MetadataError::InvalidRawBits { .. }))
        ));
    }
    for n in [0, 1 << 31, u64::MAX] {
        let e = ScaleFactor::new(n).unwrap_err();
        assert_eq!(
            e,
            Error::Metadata(MetadataError::InvalidScaleFactor {
                value: n.to_string().into()
            })
        );
    }
    assert_eq!(ScaleFactor::new((1 << 31) - 1).unwrap(), ScaleFactor::MAX);
    for length_bytes in [0, 3, 6] {
        assert_eq!(
            DataType::fixed_length_utf32(length_bytes),
            Err(Error::Metadata(MetadataError::InvalidLengthBytes {
                name: "fixed_length_utf32".into(),
                length_bytes: length_bytes as u64,
            }))
        );
    }
    assert!(DataType::null_terminated_bytes(0).is_err());
    assert!(DataType::raw_bytes(0).is_err());
    let long = FixedLength::<String>::new(
        arr1(&["ab".to_string(), "abc".into()]).into_dyn(),
        NonZeroUsize::new(2).unwrap(),
    );
    assert!(matches!(
        long,
        Err(Error::TooLong {
            index: 1,
            len: 3,
            max: 2,
            ..
        })
    ));
    // An owned array of no elements may claim any element size: its data type holds it.
    let huge = RawArray::new(ArrayD::zeros(vec![0, 1 << 62])).unwrap();
    let d = DynArray::RawBits(huge);
    let t = d.data_type();
    assert_eq!(t.size(), 1 << 62);
    assert_eq!(t.to_string(), format!("r{}", 8u128 << 62));
    assert_eq!(t.to_string().parse::<DataType>(), Ok(t.clone()));
    assert!(matches!(
        BytesCodec::new(Endian::Little).encode_dyn(&d),
        Ok(bytes) if bytes.is_empty()
    ));
}
