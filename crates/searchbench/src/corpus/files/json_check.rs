//! A fast, allocation-free check that an NDJSON line is one JSON object.
//!
//! [`is_json_object`] accepts exactly the lines that start with `{`, are UTF-8 and that
//! `serde_json::from_slice::<serde::de::IgnoredAny>` accepts (RFC 8259 with serde_json's
//! choices: `\u` escapes are only checked for 4 hex digits, so lone surrogates pass; numbers
//! are checked for syntax only, so `1e400` passes; no nesting limit). It does one pass over
//! the line: string bodies are skipped 16 bytes at a time, UTF-8 is checked only where a
//! string holds a non-ASCII byte. The differential tests in `files.rs` hold it to serde_json.
//!
//! `false` means "not proven valid": the caller asks serde_json for the reason (or, for a line
//! nested deeper than [`MAX_DEPTH`], for the verdict), so a rare slow line costs time, never
//! a wrong answer.

/// Containers open at once that the fast check follows (one bit each on the stack).
pub const MAX_DEPTH: usize = 512;

const ONES: u64 = u64::MAX / 255;
const HIGH: u64 = ONES << 7;

/// Whether `line` is proven to be exactly one JSON object (see the module doc).
pub fn is_json_object(line: &[u8]) -> bool {
    if line.first() != Some(&b'{') {
        return false;
    }
    // One bit per open container: set for an object, clear for an array.
    let mut stack = [0u64; MAX_DEPTH / 64];
    let mut depth = 0usize;
    let mut i = 0usize;
    'value: loop {
        i = skip_ws(line, i);
        let c = at(line, i);
        match c {
            b'{' | b'[' => {
                if depth == MAX_DEPTH {
                    return false;
                }
                let object = c == b'{';
                let bit = 1u64 << (depth % 64);
                if object {
                    stack[depth / 64] |= bit;
                } else {
                    stack[depth / 64] &= !bit;
                }
                depth += 1;
                i = skip_ws(line, i + 1);
                if at(line, i) == c + 2 {
                    // `{}` or `[]` (the closing bracket is 2 bytes after the opening one).
                    depth -= 1;
                    i += 1;
                } else if object {
                    match key(line, i) {
                        Some(next) => i = next,
                        None => return false,
                    }
                    continue 'value;
                } else {
                    continue 'value;
                }
            }
            b'"' => match string(line, i + 1) {
                Some(next) => i = next,
                None => return false,
            },
            b't' | b'f' | b'n' => {
                let word: &[u8] = match c {
                    b't' => b"true",
                    b'f' => b"false",
                    _ => b"null",
                };
                if !line[i..].starts_with(word) {
                    return false;
                }
                i += word.len();
            }
            b'-' | b'0'..=b'9' => match number(line, if c == b'-' { i + 1 } else { i }) {
                Some(next) => i = next,
                None => return false,
            },
            _ => return false,
        }
        // After a value: close containers, or a comma and the next value.
        loop {
            i = skip_ws(line, i);
            if depth == 0 {
                return i == line.len();
            }
            let object = stack[(depth - 1) / 64] >> ((depth - 1) % 64) & 1 == 1;
            match at(line, i) {
                b',' => {
                    i += 1;
                    if object {
                        match key(line, skip_ws(line, i)) {
                            Some(next) => i = next,
                            None => return false,
                        }
                    }
                    continue 'value;
                }
                b'}' if object => {
                    depth -= 1;
                    i += 1;
                }
                b']' if !object => {
                    depth -= 1;
                    i += 1;
                }
                _ => return false,
            }
        }
    }
}

/// The byte at `i`, or 0 past the end (0 is valid nowhere, so the end needs no own case).
#[inline(always)]
fn at(line: &[u8], i: usize) -> u8 {
    line.get(i).copied().unwrap_or(0)
}

#[inline(always)]
fn skip_ws(line: &[u8], mut i: usize) -> usize {
    while matches!(at(line, i), b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// An object key at `i` (its opening quote), whitespace and the colon: the index after it.
#[inline(always)]
fn key(line: &[u8], i: usize) -> Option<usize> {
    if at(line, i) != b'"' {
        return None;
    }
    let i = skip_ws(line, string(line, i + 1)?);
    (at(line, i) == b':').then_some(i + 1)
}

/// A string body starting at `i` (after the opening quote): the index after the closing one.
#[inline(always)]
fn string(line: &[u8], mut i: usize) -> Option<usize> {
    loop {
        i = skip_plain(line, i);
        match at(line, i) {
            b'"' => return Some(i + 1),
            b'\\' => {
                i = match at(line, i + 1) {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i + 2,
                    b'u' if line
                        .get(i + 2..i + 6)
                        .is_some_and(|hex| hex.iter().all(u8::is_ascii_hexdigit)) =>
                    {
                        i + 6
                    }
                    _ => return None,
                }
            }
            0x20..=0x7f => i += 1,
            0x80..=0xff => i = utf8_char(line, i)?,
            _ => return None, // a control character, or the end of the line
        }
    }
}

/// The index of the first byte from `i` that a string body cannot simply skip: '"', '\\', a
/// control or a non-ASCII byte (or the end of the line). 16 bytes at a time with SSE2, then 8
/// with SWAR.
#[inline(always)]
fn skip_plain(line: &[u8], mut i: usize) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_cmplt_epi8, _mm_loadu_si128, _mm_movemask_epi8,
            _mm_or_si128, _mm_set1_epi8,
        };
        while let Some(chunk) = line.get(i..).and_then(|rest| rest.first_chunk::<16>()) {
            // Signed: bytes >= 0x80 are negative, so one compare finds controls and non-ASCII.
            // SAFETY: SSE2 is part of the x86_64 baseline; `chunk` is 16 readable bytes and
            // `loadu` needs no alignment.
            let mask = unsafe {
                let v = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
                let special = _mm_or_si128(
                    _mm_or_si128(
                        _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8)),
                        _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8)),
                    ),
                    _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)),
                );
                _mm_movemask_epi8(special) as u32
            };
            if mask != 0 {
                return i + mask.trailing_zeros() as usize;
            }
            i += 16;
        }
    }
    // (Each test below can flag bytes above a true hit, never below: the lowest flag is exact.)
    while let Some(chunk) = line.get(i..).and_then(|rest| rest.first_chunk::<8>()) {
        let w = u64::from_le_bytes(*chunk);
        let quote = w ^ (ONES * u64::from(b'"'));
        let backslash = w ^ (ONES * u64::from(b'\\'));
        let special = (quote.wrapping_sub(ONES) & !quote)
            | (backslash.wrapping_sub(ONES) & !backslash)
            | (w.wrapping_sub(ONES * 0x20) & !w)
            | w;
        let special = special & HIGH;
        if special != 0 {
            return i + special.trailing_zeros() as usize / 8;
        }
        i += 8;
    }
    i
}

/// A multi-byte UTF-8 character at `i` (Unicode's well-formed sequences, as
/// `std::str::from_utf8`): the index after it.
#[inline]
fn utf8_char(line: &[u8], i: usize) -> Option<usize> {
    let cont = |k: usize| matches!(at(line, k), 0x80..=0xbf);
    let (second, len) = match at(line, i) {
        0xc2..=0xdf => (0x80..=0xbf, 2),
        0xe0 => (0xa0..=0xbf, 3),
        0xe1..=0xec | 0xee..=0xef => (0x80..=0xbf, 3),
        0xed => (0x80..=0x9f, 3),
        0xf0 => (0x90..=0xbf, 4),
        0xf1..=0xf3 => (0x80..=0xbf, 4),
        0xf4 => (0x80..=0x8f, 4),
        _ => return None,
    };
    (second.contains(&at(line, i + 1)) && (i + 2..i + len).all(cont)).then_some(i + len)
}

/// A number's digits from `i` (after an optional '-'): the index after them. Syntax only,
/// as serde_json checks a number it ignores.
#[inline]
fn number(line: &[u8], mut i: usize) -> Option<usize> {
    let digits = |mut i: usize| {
        while at(line, i).is_ascii_digit() {
            i += 1;
        }
        i
    };
    match at(line, i) {
        b'0' if at(line, i + 1).is_ascii_digit() => return None,
        b'0' => i += 1,
        b'1'..=b'9' => i = digits(i + 1),
        _ => return None,
    }
    if at(line, i) == b'.' {
        if !at(line, i + 1).is_ascii_digit() {
            return None;
        }
        i = digits(i + 1);
    }
    if at(line, i) | 0x20 == b'e' {
        i += 1;
        if matches!(at(line, i), b'+' | b'-') {
            i += 1;
        }
        if !at(line, i).is_ascii_digit() {
            return None;
        }
        i = digits(i);
    }
    Some(i)
}
