//! Random draws the search needs: Dirichlet noise for self-play roots and Gumbel samples for
//! the Gumbel root. Written out here (a few lines each) so results depend only on the seed.

use rand::Rng;

fn uniform_open<R: Rng>(rng: &mut R) -> f64 {
    // (0, 1): never exactly 0, so logarithms stay finite.
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64) + f64::EPSILON / 2.0
}

fn normal<R: Rng>(rng: &mut R) -> f64 {
    let (u1, u2) = (uniform_open(rng), uniform_open(rng));
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// A Gamma(shape, 1) draw (Marsaglia and Tsang; shapes below 1 by the usual boost).
pub fn gamma<R: Rng>(rng: &mut R, shape: f64) -> f64 {
    if shape < 1.0 {
        return gamma(rng, shape + 1.0) * uniform_open(rng).powf(1.0 / shape);
    }
    let d = shape - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let x = normal(rng);
        let v = (1.0 + c * x).powi(3);
        if v <= 0.0 {
            continue;
        }
        let u = uniform_open(rng);
        if u.ln() < 0.5 * x * x + d - d * v + d * v.ln() {
            return d * v;
        }
    }
}

/// A draw from the symmetric Dirichlet distribution with `n` components.
pub fn dirichlet<R: Rng>(rng: &mut R, alpha: f32, n: usize) -> Vec<f32> {
    let g: Vec<f64> = (0..n).map(|_| gamma(rng, alpha as f64)).collect();
    let sum: f64 = g.iter().sum();
    if sum <= 0.0 {
        return vec![1.0 / n as f32; n];
    }
    g.iter().map(|x| (x / sum) as f32).collect()
}

/// A standard Gumbel draw.
pub fn gumbel<R: Rng>(rng: &mut R) -> f32 {
    -(-uniform_open(rng).ln()).ln() as f32
}

/// A uniform draw in [0, 1).
pub fn unit<R: Rng>(rng: &mut R) -> f32 {
    ((rng.next_u64() >> 40) as f32) / (1u64 << 24) as f32
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn dirichlet_sums_to_one_and_gamma_has_the_right_mean() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let d = dirichlet(&mut rng, 0.3, 10);
        assert!((d.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        for shape in [0.3, 1.0, 2.5] {
            let mean: f64 = (0..20000).map(|_| gamma(&mut rng, shape)).sum::<f64>() / 20000.0;
            assert!(
                (mean - shape).abs() < 0.05 * shape.max(1.0),
                "shape {shape}: mean {mean}"
            );
        }
    }
}
