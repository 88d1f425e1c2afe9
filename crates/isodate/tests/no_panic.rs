//! No input may panic: random bytes, random mutations of valid dates, and every short
//! string over the interesting alphabet.

use proptest::prelude::*;

fn all_formats(bytes: &[u8]) {
    for f in [
        isodate::Format::StrictDateOptionalTimeOrEpochMillis,
        isodate::Format::StrictDateOptionalTime,
        isodate::Format::EpochMillis,
    ] {
        let r = isodate::parse_with_format(f, bytes);
        if let Ok(i) = r {
            assert!(i.nano < 1_000_000_000);
        }
        let _ = r.map_err(|e| assert!(e.pos <= bytes.len(), "{e:?} for {bytes:?}"));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        all_formats(&bytes);
    }

    #[test]
    fn date_alphabet_never_panics(s in "[0-9TZ:.,+\\-tzUGMCE/a-z]{0,40}") {
        all_formats(s.as_bytes());
    }

    #[test]
    fn mutated_dates_never_panic(
        pos in 0usize..40,
        byte in any::<u8>(),
        cut in 0usize..45,
        base in prop::sample::select(vec![
            "2023-01-01T23:38:34.000Z",
            "2023-11-04T21:38:47.605716183+01:00",
            "+999999999-12-31T23:59:59.999999999-18:00",
            "-999999999-01-01T00:00:00.000000000+18:00",
            "9999-12-31T23:59:59.999999999Europe/Paris",
            "-9223372036854775807.999999",
        ]),
    ) {
        let mut b = base.as_bytes().to_vec();
        if pos < b.len() {
            b[pos] = byte;
        }
        b.truncate(cut);
        all_formats(&b);
    }
}

#[test]
fn extreme_years_in_named_zones() {
    for s in [
        "+999999999-12-31T23:59:59Europe/Paris",
        "-999999999-01-01T00:00:00America/New_York",
        "+999999999-12-31T23:59:59SystemV/EST5EDT",
        "-999999999-01-01T00:00Asia/Kolkata",
        "+1000000000-01-01T00:00Z",
    ] {
        all_formats(s.as_bytes());
    }
}
