//! The few order statistics every part of searchbench uses, written once: the median and the
//! type-7 percentile (linear interpolation between the closest ranks, as the cluster-metrics
//! truth defines it). Pure; the PRNG's shuffle is `Rng::shuffle`.

/// The median of the finite values of `values` (the mean of the two middle ones for an even
/// count); `None` when there is none.
pub fn median(values: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    v.sort_by(f64::total_cmp);
    median_sorted(&v)
}

/// The median of values already sorted ascending.
pub fn median_sorted(sorted: &[f64]) -> Option<f64> {
    let n = sorted.len();
    match n {
        0 => None,
        n if n % 2 == 1 => Some(sorted[n / 2]),
        n => Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2.0),
    }
}

/// The `p`-th percentile (type 7) of values already sorted ascending; `None` when empty.
pub fn percentile_sorted(sorted: &[f64], p: f64) -> Option<f64> {
    let n = sorted.len();
    if n == 0 {
        return None;
    }
    let r = p / 100.0 * (n - 1) as f64;
    let lo = r.floor() as usize;
    let frac = r - lo as f64;
    let a = sorted[lo];
    Some(if frac == 0.0 || lo + 1 >= n {
        a
    } else {
        a + frac * (sorted[lo + 1] - a)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_is_the_middle_or_the_mean_of_the_two_middles() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[f64::NAN]), None);
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&[1.0, f64::INFINITY, 5.0]), Some(3.0));
        assert_eq!(
            percentile_sorted(&[1.0, 2.0, 3.0, 4.0, 5.0], 90.0),
            Some(4.6)
        );
        assert_eq!(percentile_sorted(&[7.0], 90.0), Some(7.0));
    }
}
