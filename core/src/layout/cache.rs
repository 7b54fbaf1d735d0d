//! An explicit cache of planar region graphs, for callers that query the same land
//! repeatedly (baking, viewers). Its answers are bit-identical to the stateless
//! queries: a region graph is a pure function of the configuration and the region,
//! so what was cached, in which order, or evicted cannot change a result.

use std::sync::Arc;

use super::config::{Area, LayoutConfig, LayoutError};
use super::region::{RegionGraph, planar_region};
use super::spokes::{Layout, Reach, RegionMap, build_with};

/// Region graphs of one configuration, built on demand and dropped on request.
/// Owned by one caller; share it behind that caller's own lock if needed.
#[derive(Debug, Clone)]
pub struct LayoutCache {
    /// The configuration every cached graph was built with.
    cfg: LayoutConfig,
    /// Built regions by region coordinates.
    regions: RegionMap,
}

impl LayoutCache {
    /// An empty cache for `cfg`, validated.
    pub fn new(cfg: LayoutConfig) -> Result<Self, LayoutError> {
        cfg.validate()?;
        Ok(Self {
            cfg,
            regions: RegionMap::new(),
        })
    }

    /// The configuration of the cache.
    pub fn config(&self) -> &LayoutConfig {
        &self.cfg
    }

    /// The planar graph of `region`, built now if not cached.
    pub fn get_or_build(&mut self, region: (i64, i64)) -> Arc<RegionGraph> {
        let cfg = self.cfg;
        Arc::clone(
            self.regions
                .entry(region)
                .or_insert_with(|| Arc::new(planar_region(&cfg, region.0, region.1))),
        )
    }

    /// Drops `region`'s graph; returns whether it was cached.
    pub fn evict(&mut self, region: (i64, i64)) -> bool {
        self.regions.remove(&region).is_some()
    }

    /// The cached regions, in ascending order.
    pub fn cached(&self) -> Vec<(i64, i64)> {
        self.regions.keys().copied().collect()
    }

    /// [`super::layout_in`] through the cache.
    pub fn layout_in(&mut self, area: &Area) -> Result<Layout, LayoutError> {
        build_with(&self.cfg, area, Reach::Ends, &mut self.regions)
    }

    /// [`super::layout_over`] through the cache.
    pub fn layout_over(&mut self, area: &Area) -> Result<Layout, LayoutError> {
        build_with(&self.cfg, area, Reach::Over, &mut self.regions)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::{Pattern, layout_in, region_of};

    fn bits(l: &Layout) -> Vec<(String, String, [u64; 4])> {
        let mut out: Vec<_> = l
            .spokes
            .iter()
            .map(|s| {
                let p = [s.a_at.0, s.a_at.1, s.b_at.0, s.b_at.1].map(f64::to_bits);
                (s.a.clone(), s.b.clone(), p)
            })
            .collect();
        out.extend(l.hubs.iter().map(|h| {
            let p = [h.x, h.z, h.r, 0.0].map(f64::to_bits);
            (h.id.clone(), String::new(), p)
        }));
        out
    }

    fn area(x0: f64, z0: f64, x1: f64, z1: f64) -> Area {
        Area::new(x0, z0, x1, z1).expect("valid area")
    }

    #[test]
    fn cached_answers_match_stateless_ones_after_any_history() {
        for pattern in [Pattern::Zigzag, Pattern::Chaotic, Pattern::Rings] {
            let cfg = LayoutConfig::new(pattern, 1500.0, 50.0, 31).expect("cfg");
            let target = area(-4000.0, -2500.0, 7000.0, 6100.0);
            let want = bits(&layout_in(&cfg, &target).expect("stateless"));
            let mut cache = LayoutCache::new(cfg).expect("cache");
            // Warm the cache from the far side first, then query the target.
            cache
                .layout_in(&area(9000.0, 9000.0, 9001.0, 9001.0))
                .expect("warm");
            assert_eq!(bits(&cache.layout_in(&target).expect("cached")), want);
            // Evict every other region the target used, rebuild, compare again.
            let cached = cache.cached();
            assert!(cached.contains(&region_of(0, 0)));
            for r in cached.iter().step_by(2) {
                assert!(cache.evict(*r));
            }
            assert!(!cache.evict(cached[0]), "already evicted");
            assert_eq!(bits(&cache.layout_in(&target).expect("rebuilt")), want);
            let graph = cache.get_or_build((0, 0));
            assert_eq!(*graph, planar_region(&cfg, 0, 0));
        }
    }
}
