//! The Universal Scalability Law, `X(N) = λN / (1 + σ(N−1) + κN(N−1))`, fitted to
//! (clients, docs/s) points by least squares.

use serde::{Deserialize, Serialize};

/// The USL fitted to one clients row.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct UslFit {
    /// Docs/s of one client.
    pub lambda: f64,
    /// Contention (serial fraction), 0..1.
    pub sigma: f64,
    /// Coherency (crosstalk) cost.
    pub kappa: f64,
    /// Clients at the peak, `√((1−σ)/κ)`; `None` when κ is 0 (no peak: a plateau at λ/σ).
    pub peak_clients: Option<f64>,
    /// Root mean square of the residuals ÷ the mean throughput, in percent.
    pub rms_pct: f64,
}

impl UslFit {
    pub fn predict(&self, n: f64) -> f64 {
        usl(self.lambda, self.sigma, self.kappa, n)
    }
}

fn usl(lambda: f64, sigma: f64, kappa: f64, n: f64) -> f64 {
    lambda * n / (1.0 + sigma * (n - 1.0) + kappa * n * (n - 1.0))
}

/// Solves the 3 × 3 system `a x = b` (Gaussian elimination, partial pivoting).
#[allow(clippy::needless_range_loop)] // indexes read as the algebra does
fn solve3(mut a: [[f64; 3]; 3], mut b: [f64; 3]) -> Option<[f64; 3]> {
    for col in 0..3 {
        let pivot = (col..3).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[pivot][col].abs() < 1e-300 {
            return None;
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        for row in col + 1..3 {
            let f = a[row][col] / a[col][col];
            for k in col..3 {
                a[row][k] -= f * a[col][k];
            }
            b[row] -= f * b[col];
        }
    }
    let mut x = [0.0; 3];
    for row in (0..3).rev() {
        let s: f64 = (row + 1..3).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - s) / a[row][row];
    }
    x.iter().all(|v| v.is_finite()).then_some(x)
}

fn sum_sq(points: &[(f64, f64)], p: [f64; 3]) -> f64 {
    points
        .iter()
        .map(|&(n, x)| (x - usl(p[0], p[1], p[2], n)).powi(2))
        .sum()
}

/// Least-squares USL fit of throughput `x` at `n` clients: a start from the linear form
/// `N/X = (1 + σ(N−1) + κN(N−1)) / λ`, then Levenberg–Marquardt on the throughput
/// residuals, with σ held in [0, 1] and κ ≥ 0. Needs three distinct client counts.
pub fn fit_usl(points: &[(f64, f64)]) -> Option<UslFit> {
    let points: Vec<(f64, f64)> = points
        .iter()
        .copied()
        .filter(|&(n, x)| n >= 1.0 && x > 0.0 && x.is_finite())
        .collect();
    let mut distinct: Vec<f64> = points.iter().map(|p| p.0).collect();
    distinct.sort_by(f64::total_cmp);
    distinct.dedup();
    if distinct.len() < 3 {
        return None;
    }
    // Linear start: y = N/X = a + b(N−1) + cN(N−1).
    let mut ata = [[0.0; 3]; 3];
    let mut aty = [0.0; 3];
    for &(n, x) in &points {
        let row = [1.0, n - 1.0, n * (n - 1.0)];
        let y = n / x;
        for i in 0..3 {
            for j in 0..3 {
                ata[i][j] += row[i] * row[j];
            }
            aty[i] += row[i] * y;
        }
    }
    let clamp = |p: [f64; 3]| [p[0].max(1e-12), p[1].clamp(0.0, 1.0), p[2].max(0.0)];
    let mut p = match solve3(ata, aty) {
        Some([a, b, c]) if a > 0.0 => clamp([1.0 / a, b / a, c / a]),
        _ => {
            let (n, x) = points[0];
            [x / n, 0.0, 0.0]
        }
    };
    let mut mu = 1e-3;
    let mut cost = sum_sq(&points, p);
    for _ in 0..500 {
        let mut jtj = [[0.0; 3]; 3];
        let mut jtr = [0.0; 3];
        for &(n, x) in &points {
            let d = 1.0 + p[1] * (n - 1.0) + p[2] * n * (n - 1.0);
            let f = p[0] * n / d;
            let j = [
                n / d,
                -p[0] * n * (n - 1.0) / (d * d),
                -p[0] * n * n * (n - 1.0) / (d * d),
            ];
            for a in 0..3 {
                for b in 0..3 {
                    jtj[a][b] += j[a] * j[b];
                }
                jtr[a] += j[a] * (x - f);
            }
        }
        let mut damped = jtj;
        for (i, row) in damped.iter_mut().enumerate() {
            row[i] += mu * jtj[i][i].max(1e-300);
        }
        let Some(step) = solve3(damped, jtr) else {
            break;
        };
        let next = clamp([p[0] + step[0], p[1] + step[1], p[2] + step[2]]);
        let next_cost = sum_sq(&points, next);
        if next_cost < cost {
            let gain = cost - next_cost;
            p = next;
            cost = next_cost;
            mu = (mu / 3.0).max(1e-12);
            if gain <= cost * 1e-15 {
                break;
            }
        } else {
            mu *= 4.0;
            if mu > 1e12 {
                break;
            }
        }
    }
    let mean_x = points.iter().map(|p| p.1).sum::<f64>() / points.len() as f64;
    let rms = (cost / points.len() as f64).sqrt();
    Some(UslFit {
        lambda: p[0],
        sigma: p[1],
        kappa: p[2],
        // Below one client there is no peak to reach: full contention peaks at 1.
        peak_clients: (p[2] > 1e-12).then(|| ((1.0 - p[1]) / p[2]).sqrt().max(1.0)),
        rms_pct: rms / mean_x * 100.0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usl_fit_recovers_known_terms() {
        let (lambda, sigma, kappa) = (1000.0, 0.05, 0.002);
        let points: Vec<(f64, f64)> = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0]
            .iter()
            .map(|&n| (n, usl(lambda, sigma, kappa, n)))
            .collect();
        let f = fit_usl(&points).expect("a fit");
        assert!((f.lambda - lambda).abs() / lambda < 1e-6, "{f:?}");
        assert!((f.sigma - sigma).abs() < 1e-6, "{f:?}");
        assert!((f.kappa - kappa).abs() < 1e-7, "{f:?}");
        let peak = ((1.0 - sigma) / kappa).sqrt();
        assert!((f.peak_clients.expect("a peak") - peak).abs() < 1e-3);
        assert!(f.rms_pct < 1e-6);
    }

    #[test]
    fn usl_fit_with_noise_stays_close() {
        let (lambda, sigma, kappa) = (2500.0, 0.1, 0.005);
        // ±1 % alternating noise.
        let points: Vec<(f64, f64)> = [1.0, 2.0, 4.0, 8.0, 16.0]
            .iter()
            .enumerate()
            .map(|(i, &n)| {
                let noise = if i % 2 == 0 { 1.01 } else { 0.99 };
                (n, usl(lambda, sigma, kappa, n) * noise)
            })
            .collect();
        let f = fit_usl(&points).expect("a fit");
        assert!((f.lambda - lambda).abs() / lambda < 0.05, "{f:?}");
        assert!((f.sigma - sigma).abs() < 0.03, "{f:?}");
        assert!((f.kappa - kappa).abs() < 0.003, "{f:?}");
    }

    #[test]
    fn usl_fit_of_linear_scaling_has_no_contention_and_no_peak() {
        let points: Vec<(f64, f64)> = [1.0, 2.0, 4.0, 8.0]
            .iter()
            .map(|&n| (n, 300.0 * n))
            .collect();
        let f = fit_usl(&points).expect("a fit");
        assert!(
            (f.lambda - 300.0).abs() < 1e-6 && f.sigma < 1e-9 && f.kappa < 1e-12,
            "{f:?}"
        );
        assert_eq!(f.peak_clients, None);
    }

    #[test]
    fn usl_needs_three_client_counts() {
        assert!(fit_usl(&[(1.0, 10.0), (2.0, 19.0), (2.0, 18.0)]).is_none());
    }
}
