use super::parser::simple_decimal;
use super::*;

fn err(input: &str) -> ParseError {
    let arena = Arena::new();
    parse(input.as_bytes(), &Limits::default(), &arena).unwrap_err()
}

#[test]
fn spans_and_values() {
    let arena = Arena::new();
    let input = br#" {"a": [1, -2.5e3, true, null, "x\u00e9\ud83d\ude00"]} "#;
    let doc = parse(input, &Limits::default(), &arena).unwrap();
    assert_eq!(doc.root.span, Span::new(1, input.len() - 1));
    let a = doc.root.get("a").unwrap().as_array().unwrap();
    assert_eq!(a[0].as_number().unwrap().as_i64(), Some(1));
    assert!(!a[1].as_number().unwrap().is_integer);
    assert_eq!(a[1].as_number().unwrap().value, -2500.0);
    assert_eq!(a[4].as_str(), Some("xé😀"));
    assert_eq!(doc.root.member("a").unwrap().key_span, Span::new(2, 5));
}

#[test]
fn syntax_errors_at_the_right_offset() {
    assert_eq!(err("{\"a\":1,}").offset, 7);
    assert_eq!(err("[1,]").offset, 3);
    assert_eq!(err("{\"a\" 1}").offset, 5);
    assert_eq!(err("[01]").offset, 2);
    assert_eq!(err("\"abc").offset, 4);
    assert_eq!(err("[1] x").offset, 4);
    assert_eq!(err("").offset, 0);
    assert_eq!(err("{'a':1}").offset, 1);
    assert_eq!(err("\"\\ud800\"").code, "INVALID_JSON");
    assert_eq!(err("\"a\tb\"").offset, 2);
}

#[test]
fn invalid_utf8_is_located() {
    let arena = Arena::new();
    let e = parse(b"{\"a\": \"\xff\"}", &Limits::default(), &arena).unwrap_err();
    assert_eq!((e.code, e.offset), ("INVALID_UTF8", 7));
}

#[test]
fn depth_and_size_limits() {
    let arena = Arena::new();
    let deep = "[".repeat(100_000);
    let e = err(&deep);
    assert_eq!(e.code, "TOO_DEEP");
    let ok = format!("{}{}", "[".repeat(64), "]".repeat(64));
    assert!(parse(ok.as_bytes(), &Limits::default(), &arena).is_ok());
    let e = parse(b"[1, 2]", &Limits { max_bytes: 3, ..Limits::default() }, &arena).unwrap_err();
    assert_eq!(e.code, "TOO_LARGE");
}

#[test]
fn same_text_answers_as_equality_does() {
    // Every length around the 8-byte words, a difference at every position, multi-byte text.
    for len in 0..20 {
        let a: String = (0..len).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
        assert!(same_text(&a, &a.clone()));
        assert!(!same_text(&a, &format!("{a}x")) && !same_text(&format!("x{a}"), &a));
        for at in 0..len {
            let mut b = a.clone().into_bytes();
            b[at] = b'_';
            let b = String::from_utf8(b).unwrap();
            assert!(!same_text(&a, &b) && !same_text(&b, &a), "{a} {b}");
        }
    }
    assert!(same_text("précio 🌶️", "précio 🌶️") && !same_text("précio 🌶️", "précia 🌶️"));
}

#[test]
fn duplicate_keys_are_recorded_and_last_wins() {
    let arena = Arena::new();
    let doc = parse(br#"{"x": {"a": 1, "b": 2, "a": 3}}"#, &Limits::default(), &arena).unwrap();
    assert_eq!(doc.duplicate_keys.len(), 1);
    assert_eq!(doc.duplicate_keys[0].object_pointer, "/x");
    assert_eq!(doc.duplicate_keys[0].first, Span::new(7, 10));
    assert_eq!(doc.duplicate_keys[0].span, Span::new(23, 26));
    assert_eq!(doc.root.get("x").unwrap().get("a").unwrap().as_number().unwrap().value, 3.0);
}

#[test]
fn duplicate_keys_point_at_their_object_through_arrays_and_escaped_keys() {
    let arena = Arena::new();
    // Arrays inside arrays inside objects, elements before and after, and a key needing
    // RFC 6901 escapes: the pointer is rebuilt from the open containers when a duplicate is met.
    let text = br#"{"a": [1, {"b": [[0, 9], [7, {"k": 1, "k": 2}], 3]}], "c/~": [{"z": 0}, {"z": 0, "z": 1}], "e": {"z": 1, "z": 2}}"#;
    let doc = parse(text, &Limits::default(), &arena).unwrap();
    let pointers: Vec<&str> = doc.duplicate_keys.iter().map(|d| d.object_pointer.as_str()).collect();
    assert_eq!(pointers, ["/a/1/b/1/1", "/c~1~0/1", "/e"]);
    // The same document once more at the top of an array: every pointer gains its index.
    let text = [b"[null, ".as_slice(), text, b"]"].concat();
    let doc = parse(&text, &Limits::default(), &arena).unwrap();
    let pointers: Vec<&str> = doc.duplicate_keys.iter().map(|d| d.object_pointer.as_str()).collect();
    assert_eq!(pointers, ["/1/a/1/b/1/1", "/1/c~1~0/1", "/1/e"]);
}

#[test]
fn strings_are_scanned_in_chunks_without_missing_a_special_byte() {
    let arena = Arena::new();
    for len in 0..20 {
        for at in 0..=len {
            let (head, tail) = ("a".repeat(at), "b".repeat(len - at));
            // A raw control character is refused exactly where it is.
            assert_eq!(err(&format!("\"{head}\t{tail}\"")).offset, 1 + at);
            // An escape or a quote is seen wherever it falls in an 8-byte word.
            let text = format!("[\"{head}\\n{tail}\", \"{head}\"]");
            let doc = parse(text.as_bytes(), &Limits::default(), &arena).unwrap();
            let items = doc.root.as_array().unwrap();
            assert_eq!(items[0].as_str().unwrap(), format!("{head}\n{tail}"));
            assert_eq!(items[1].as_str().unwrap(), head);
            assert_eq!(items[1].span, Span::new(len + 7, len + 7 + at + 2));
        }
    }
    let accents = "é😀ü".repeat(9);
    let text = format!("\"{accents}\"");
    let doc = parse(text.as_bytes(), &Limits::default(), &arena).unwrap();
    assert_eq!(doc.root.as_str(), Some(accents.as_str()));
}

#[test]
fn nested_containers_keep_their_own_elements() {
    let arena = Arena::new();
    let doc = parse(br#"{"a": [1, [2, 3], {"b": [], "c": {"d": 4}}], "e": {}, "f": [[], [5]]}"#, &Limits::default(), &arena).unwrap();
    let a = doc.root.get("a").unwrap().as_array().unwrap();
    assert_eq!(a.len(), 3);
    assert_eq!(a[1].as_array().unwrap().len(), 2);
    assert_eq!(a[2].get("c").unwrap().get("d").unwrap().as_number().unwrap().value, 4.0);
    assert_eq!(doc.root.as_object().unwrap().len(), 3);
    assert_eq!(doc.root.get("f").unwrap().as_array().unwrap()[1].as_array().unwrap().len(), 1);
    let dup = parse(br#"[{"k": 1}, {"k": 2, "x": {"k": 3}}, {"k": 4, "k": 5}]"#, &Limits::default(), &arena).unwrap();
    assert_eq!(dup.duplicate_keys.len(), 1);
    assert_eq!(dup.duplicate_keys[0].object_pointer, "/2");
}

#[test]
fn duplicates_in_wide_objects_point_at_the_first_occurrence() {
    let arena = Arena::new();
    let mut text = String::from("{");
    for i in 0..40 {
        text.push_str(&format!("\"k{}\": {i}, ", i % 30));
    }
    text.push_str("\"end\": 0}");
    let doc = parse(text.as_bytes(), &Limits::default(), &arena).unwrap();
    assert_eq!(doc.duplicate_keys.len(), 10);
    for d in &doc.duplicate_keys {
        let first = &text[d.first.start..d.first.end];
        assert_eq!(first, format!("\"{}\"", d.key));
        assert_eq!(text.find(first), Some(d.first.start), "{}", d.key);
    }
    // Linear time: a very wide object parses quickly even in a debug build.
    let wide: String = (0..200_000).map(|i| format!("\"k{i}\": 1,")).collect();
    let start = std::time::Instant::now();
    assert!(parse(format!("{{{wide}\"k0\": 2}}").as_bytes(), &Limits::default(), &arena).unwrap().duplicate_keys.len() == 1);
    assert!(start.elapsed() < std::time::Duration::from_secs(20));
}

#[test]
fn an_arena_sized_for_a_huge_input_reserves_a_bounded_room() {
    // Sized for any length without a failed reservation; the room is the hint's at most.
    for len in [0, 258, ARENA_HINT_MAX, ARENA_HINT_MAX + 1, usize::MAX / 2, usize::MAX] {
        let arena = Arena::for_input(len);
        assert!(arena.allocated_bytes() <= 2 * ARENA_HINT_MAX + 4096, "{len}: {}", arena.allocated_bytes());
    }
    // A tree larger than the room still parses: the arena grows.
    let big: String = format!("[{}0]", "{\"k\": 1}, ".repeat(100_000));
    let arena = Arena::for_input(16);
    let doc = parse(big.as_bytes(), &Limits::default(), &arena).unwrap();
    assert_eq!(doc.root.as_array().unwrap().len(), 100_001);
}

/// The numbers a parse reads: the fast path's when it takes one, `str::parse`'s otherwise.
fn parsed_number(text: &str) -> f64 {
    let arena = Arena::new();
    parse(text.as_bytes(), &Limits::default(), &arena).unwrap().root.as_number().unwrap().value
}

#[test]
fn simple_decimals_read_bit_for_bit_as_str_parse_does() {
    let same = |text: &str| {
        let expected = text.parse::<f64>().unwrap();
        assert_eq!(parsed_number(text).to_bits(), expected.to_bits(), "{text}");
        if let Some(v) = simple_decimal(text.as_bytes()) {
            assert_eq!(v.to_bits(), expected.to_bits(), "{text}");
        }
    };
    let edges = [
        "0",
        "-0",
        "0.0",
        "-0.0",
        "0.1",
        "0.2",
        "0.3",
        "0.30000000000000004",
        "-0.30000000000000004",
        "1",
        "-1",
        "23.5",
        "0.72",
        "3.78",
        "21.0",
        "9007199254740991",
        "9007199254740992",
        "9007199254740993",
        "-9007199254740993",
        "9007199254740992.0",
        "900719925474099.3",
        "0.9007199254740993",
        "1234567890123456789",
        "9999999999999999999",
        "0.000000000000000001",
        "0.0000000000000000001",
        "0.00000000000000000000001",
        "0.1234567890123456789",
        "1.7976931348623157",
        "123456789012345678.9",
        "4.35",
        "1.005",
        "2.675",
        "0.1e1",
        "1e22",
        "1E-7",
        "-2.5e3",
        "5e-324",
        "1e400",
        "-1e400",
        "100000000000000000000000",
    ];
    for text in edges {
        same(text);
    }
    // The fast path answers for the plain decimals it is meant for.
    for text in ["0", "-0", "0.1", "23.5", "9007199254740992", "0.3000000000000004", "0.00000000000000001"] {
        assert!(simple_decimal(text.as_bytes()).is_some(), "{text}");
    }
    for text in ["9007199254740993", "1e2", "0.0000000000000000001", "12345678901234567890"] {
        assert!(simple_decimal(text.as_bytes()).is_none(), "{text}");
    }
    assert_eq!(simple_decimal(b"-0").map(f64::to_bits), Some((-0.0f64).to_bits()));
    // Generated decimals of every width around the bounds (19 characters, 2^53, 22 digits).
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut fast = 0;
    for _ in 0..200_000 {
        let r = next();
        let int_len = 1 + (r % 20) as usize;
        let frac_len = ((r >> 8) % 24) as usize;
        let mut text = String::new();
        if r >> 20 & 1 == 1 {
            text.push('-');
        }
        let mut digit = |first: bool| {
            let d = (next() % 10) as u8;
            char::from(b'0' + if first && int_len > 1 && d == 0 { 1 } else { d })
        };
        for i in 0..int_len {
            text.push(digit(i == 0));
        }
        if frac_len > 0 {
            text.push('.');
            for _ in 0..frac_len {
                text.push(digit(false));
            }
        }
        same(&text);
        fast += usize::from(simple_decimal(text.as_bytes()).is_some());
    }
    assert!(fast > 20_000, "{fast}");
}

#[test]
fn bom_is_tolerated() {
    let arena = Arena::new();
    assert!(parse(b"\xEF\xBB\xBF{}", &Limits::default(), &arena).is_ok());
}
