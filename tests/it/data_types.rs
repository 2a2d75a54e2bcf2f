//! Data types as `zarr.json` writes them: every name and configuration read, written back
//! in the canonical form, sized, and every bad configuration a named error.

use serde_json::{Value, json};
use zarr_bytes::{
    BytesCodec, DataType, Endian, Error, MetadataError, ScaleFactor, StructField, StructType,
    TimeUnit,
};

fn field(name: &str, data_type: DataType) -> StructField {
    StructField {
        name: name.into(),
        data_type,
    }
}

fn structure(fields: Vec<StructField>) -> DataType {
    DataType::Struct(StructType::new(fields).unwrap())
}

fn parse(value: Value) -> Result<DataType, String> {
    serde_json::from_value::<DataType>(value).map_err(|e| e.to_string())
}

/// The error `FromStr` gives for this JSON text.
fn error(value: Value) -> Error {
    let text = value.to_string();
    text.parse::<DataType>().expect_err(&text)
}

#[test]
fn names_of_the_extension_types() {
    let cases: [(&str, DataType, usize, bool); 19] = [
        ("int2", DataType::Int2, 1, false),
        ("int4", DataType::Int4, 1, false),
        ("uint2", DataType::UInt2, 1, false),
        ("uint4", DataType::UInt4, 1, false),
        ("float4_e2m1fn", DataType::Float4E2M1FN, 1, false),
        ("float6_e2m3fn", DataType::Float6E2M3FN, 1, false),
        ("float6_e3m2fn", DataType::Float6E3M2FN, 1, false),
        ("float8_e3m4", DataType::Float8E3M4, 1, false),
        ("float8_e4m3", DataType::Float8E4M3, 1, false),
        ("float8_e4m3b11fnuz", DataType::Float8E4M3B11FNUZ, 1, false),
        ("float8_e4m3fn", DataType::Float8E4M3FN, 1, false),
        ("float8_e4m3fnuz", DataType::Float8E4M3FNUZ, 1, false),
        ("float8_e5m2", DataType::Float8E5M2, 1, false),
        ("float8_e5m2fnuz", DataType::Float8E5M2FNUZ, 1, false),
        ("float8_e8m0fnu", DataType::Float8E8M0FNU, 1, false),
        ("complex_float16", DataType::ComplexFloat16, 4, true),
        ("complex_bfloat16", DataType::ComplexBFloat16, 4, true),
        ("bfloat16", DataType::BFloat16, 2, true),
        ("complex128", DataType::Complex128, 16, true),
    ];
    for (name, t, size, endian) in cases {
        assert_eq!(name.parse::<DataType>().unwrap(), t, "{name}");
        assert_eq!(parse(json!(name)).unwrap(), t, "{name}");
        // Any data type may come as an object with just a name.
        assert_eq!(parse(json!({ "name": name })).unwrap(), t, "{name}");
        assert_eq!(
            parse(json!({"name": name, "configuration": {}})).unwrap(),
            t
        );
        assert_eq!(t.to_string(), name);
        assert_eq!(serde_json::to_value(&t).unwrap(), json!(name));
        assert_eq!((t.size(), t.endian_applies()), (size, endian), "{name}");
    }
    // Aliases read as the core types and are written by their core names.
    for (alias, t) in [
        ("complex_float32", DataType::Complex64),
        ("complex_float64", DataType::Complex128),
    ] {
        assert_eq!(parse(json!(alias)).unwrap(), t);
        assert_eq!(
            t.to_string(),
            if alias.ends_with("32") {
                "complex64"
            } else {
                "complex128"
            }
        );
    }
}

#[test]
fn configured_types_read_and_write_their_objects() {
    let cases = [
        (
            json!({"name": "numpy.datetime64", "configuration": {"unit": "ns", "scale_factor": 1}}),
            DataType::DateTime64 {
                unit: TimeUnit::Nanoseconds,
                scale_factor: ScaleFactor::ONE,
            },
            8,
            true,
        ),
        (
            json!({"name": "numpy.timedelta64", "configuration": {"unit": "M", "scale_factor": 2147483647}}),
            DataType::TimeDelta64 {
                unit: TimeUnit::Months,
                scale_factor: ScaleFactor::MAX,
            },
            8,
            true,
        ),
        (
            json!({"name": "fixed_length_utf32", "configuration": {"length_bytes": 12}}),
            DataType::fixed_length_utf32(12).unwrap(),
            12,
            true,
        ),
        (
            json!({"name": "null_terminated_bytes", "configuration": {"length_bytes": 5}}),
            DataType::null_terminated_bytes(5).unwrap(),
            5,
            false,
        ),
        (
            json!({"name": "raw_bytes", "configuration": {"length_bytes": 3}}),
            DataType::raw_bytes(3).unwrap(),
            3,
            false,
        ),
    ];
    for (value, t, size, endian) in cases {
        assert_eq!(parse(value.clone()).unwrap(), t);
        assert_eq!(serde_json::to_value(&t).unwrap(), value);
        assert_eq!(t.to_string().parse::<DataType>().unwrap(), t);
        assert_eq!((t.size(), t.endian_applies()), (size, endian), "{t}");
    }
    // Every unit, both ways.
    for unit in [
        "Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as", "generic",
    ] {
        let u: TimeUnit = unit.parse().unwrap();
        assert_eq!(u.as_str(), unit);
        assert_eq!(u.to_string(), unit);
    }
}

#[test]
fn structs_nest_and_the_legacy_form_reads_as_struct() {
    let canonical = json!({"name": "struct", "configuration": {"fields": [
        {"name": "a", "data_type": "int16"},
        {"name": "b", "data_type": {"name": "struct", "configuration": {"fields": [
            {"name": "c", "data_type": "complex64"},
            {"name": "d", "data_type": {"name": "fixed_length_utf32", "configuration": {"length_bytes": 8}}}
        ]}}}
    ]}});
    let t = parse(canonical.clone()).unwrap();
    let inner = structure(vec![
        field("c", DataType::Complex64),
        field("d", DataType::fixed_length_utf32(8).unwrap()),
    ]);
    assert_eq!(
        t,
        structure(vec![field("a", DataType::Int16), field("b", inner)])
    );
    assert_eq!((t.size(), t.endian_applies()), (18, true));
    assert_eq!(serde_json::to_value(&t).unwrap(), canonical);
    assert_eq!(t.to_string().parse::<DataType>().unwrap(), t);

    let legacy = json!({"name": "structured", "configuration": {"fields": [
        ["a", "int16"],
        ["b", {"name": "structured", "configuration": {"fields": [
            ["c", "complex64"],
            ["d", {"name": "fixed_length_utf32", "configuration": {"length_bytes": 8}}]
        ]}}]
    ]}});
    assert_eq!(parse(legacy).unwrap(), t);

    // Single-byte fields need no endian; a multi-byte field anywhere does.
    let bytes_only = parse(json!({"name": "struct", "configuration": {"fields": [
        {"name": "x", "data_type": "uint8"}, {"name": "y", "data_type": "bool"},
        {"name": "z", "data_type": {"name": "raw_bytes", "configuration": {"length_bytes": 2}}}
    ]}}))
    .unwrap();
    assert!(!bytes_only.endian_applies());
    assert!(BytesCodec::default().validate(&bytes_only).is_ok());
    assert!(matches!(
        BytesCodec::default().validate(&t),
        Err(Error::Metadata(MetadataError::EndianRequired { data_type })) if data_type == t
    ));
    assert!(BytesCodec::new(Endian::Big).validate(&t).is_ok());
}

#[test]
fn bad_configurations_are_named_errors() {
    let datetime = |unit: Value, factor: Value| json!({"name": "numpy.datetime64", "configuration": {"unit": unit, "scale_factor": factor}});
    assert!(matches!(
        error(datetime(json!("sec"), json!(1))),
        Error::Metadata(MetadataError::UnknownTimeUnit { unit }) if &*unit == "sec"
    ));
    for factor in [
        json!(0),
        json!(-1),
        json!(2147483648u64),
        json!(1.5),
        json!("1"),
    ] {
        let e = error(datetime(json!("s"), factor.clone()));
        assert!(
            matches!(&e, Error::Metadata(MetadataError::InvalidScaleFactor { value }) if &**value == factor.to_string().as_str()),
            "{factor}: {e}"
        );
    }
    for (name, length) in [
        ("fixed_length_utf32", 0),
        ("fixed_length_utf32", 6),
        ("null_terminated_bytes", 0),
        ("raw_bytes", 0),
    ] {
        let e = error(json!({"name": name, "configuration": {"length_bytes": length}}));
        assert!(
            matches!(&e, Error::Metadata(MetadataError::InvalidLengthBytes { name: n, length_bytes }) if &**n == name && *length_bytes == length),
            "{name} {length}: {e}"
        );
    }
    let e = error(json!({"name": "struct", "configuration": {"fields": []}}));
    assert!(matches!(e, Error::Metadata(MetadataError::EmptyStruct)));
    let e = error(json!({"name": "struct", "configuration": {"fields": [
        {"name": "a", "data_type": "int8"}, {"name": "a", "data_type": "int16"}]}}));
    assert!(matches!(e, Error::Metadata(MetadataError::DuplicateField { name }) if &*name == "a"));
    // Fields whose sizes add up past isize::MAX.
    let huge = json!({"name": "raw_bytes", "configuration": {"length_bytes": 1u64 << 62}});
    let e = error(json!({"name": "struct", "configuration": {"fields": [
        {"name": "a", "data_type": huge}, {"name": "b", "data_type": huge}]}}));
    assert!(
        matches!(e, Error::Metadata(MetadataError::StructTooLarge)),
        "{e}"
    );

    // Configuration keys: missing, unknown, mistyped; names that need one; names that take none.
    for (value, needle) in [
        (
            json!({"name": "numpy.datetime64", "configuration": {"unit": "s"}}),
            "missing configuration key \"scale_factor\"",
        ),
        (
            json!({"name": "raw_bytes", "configuration": {"length_bytes": 2, "x": 1}}),
            "unknown configuration key \"x\"",
        ),
        (
            json!({"name": "raw_bytes", "configuration": {"length_bytes": "2"}}),
            "\"length_bytes\" must be",
        ),
        (
            json!({"name": "struct", "configuration": {"fields": [["a"]]}}),
            "a field is",
        ),
        (json!("numpy.datetime64"), "missing configuration"),
        (
            json!({"name": "int8", "configuration": {"endian": "big"}}),
            "takes no configuration",
        ),
        (json!({"configuration": {}}), "needs a \"name\""),
        (json!(["int8"]), "a name or an object"),
        (
            json!({"name": "int8", "extra": 1}),
            "unexpected key \"extra\"",
        ),
    ] {
        let e = error(value.clone());
        assert!(
            matches!(
                e,
                Error::Metadata(MetadataError::InvalidConfiguration { .. })
            ) && e.to_string().contains(needle),
            "{value}: {e}"
        );
    }
    assert!(matches!(
        error(json!({"name": "float128", "configuration": {"x": 1}})),
        Error::Metadata(MetadataError::UnknownDataType { name }) if &*name == "float128"
    ));
    // Serde reports the same errors in its own type, with the message.
    let e = parse(datetime(json!("s"), json!(0))).unwrap_err();
    assert!(e.contains("invalid scale factor 0"), "{e}");
}

#[test]
fn nesting_past_the_limit_is_an_error_not_a_stack_overflow() {
    let nested = |depth: usize| {
        let mut t = json!("int8");
        for _ in 0..depth {
            t = json!({"name": "struct", "configuration": {"fields": [{"name": "f", "data_type": t}]}});
        }
        t
    };
    let deepest = parse(nested(DataType::MAX_DEPTH)).unwrap();
    assert_eq!(deepest.size(), 1);
    let e = error(nested(DataType::MAX_DEPTH + 1));
    let too_deep = Error::Metadata(MetadataError::NestingTooDeep {
        limit: DataType::MAX_DEPTH,
    });
    assert_eq!(e, too_deep);
    // By hand too: a struct one level deeper than the limit cannot be made.
    let mut deep = DataType::Int8;
    for _ in 0..DataType::MAX_DEPTH {
        deep = structure(vec![field("f", deep)]);
    }
    assert_eq!(deep, deepest);
    assert_eq!(StructType::new(vec![field("f", deep)]), Err(too_deep));
    // JSON deeper than serde_json reads is its error, not a crash.
    assert!(parse_text(&"[".repeat(100_000)).is_err());
}

fn parse_text(text: &str) -> Result<DataType, serde_json::Error> {
    serde_json::from_str(text)
}
