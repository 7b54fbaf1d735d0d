//! [`VoxelConfig`]: the parameters of a voxel world (`[worlds.voxel]` in a server's
//! configuration), their defaults and their validation.

use serde::{Deserialize, Serialize};

use super::block::Biome;

/// The parameters of a voxel world's generator. Every field has a default (missing
/// keys take it) and is checked by [`VoxelConfig::validate`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(default, deny_unknown_fields)]
pub struct VoxelConfig {
    /// Vertical range: blocks `y` in `0..max_height`, 8 to 255 (default 64).
    pub max_height: u32,
    /// Water fills the blocks below this level over lower ground (ice on top in icy
    /// biomes); below `max_height` (default 24).
    pub sea_level: u32,
    /// Ground level where the height noise is 0; below `max_height` (default 26).
    pub base_height: u32,
    /// The height noise (in -1..1) times this many blocks is added to `base_height`;
    /// at most 128 (default 16).
    pub amplitude: u32,
    /// Wavelength of the first height octave, in blocks (> 1, at most 1e6; default 96).
    /// The second and third octaves have half and a quarter of it.
    pub scale: f64,
    /// How far the domain warp displaces the coordinates before the height noise is
    /// sampled, in blocks (0 to 1e6; default 12). Its own noise has wavelength `2 scale`.
    pub warp: f64,
    /// Talus erosion: Jacobi iterations (0 to 32; default 4). A chunk is generated with
    /// this many columns of apron (plus the reach of decorations).
    pub erosion_iterations: u32,
    /// Talus erosion: a column higher than its lowest neighbour by more than this many
    /// blocks is lowered (1 to 255; default 2).
    pub talus_threshold: u32,
    /// The primary biome of the whole world; `None` (the key left out): derived from
    /// the seed, per region of `biome_region` blocks.
    #[cfg_attr(
        feature = "openapi",
        schema(value_type = Option<String>, example = "temperate")
    )]
    pub primary_biome: Option<Biome>,
    /// Edge of the square regions that each get a primary biome from the seed, in
    /// blocks: 0 (one primary biome for the whole world, derived from the seed alone) or
    /// 64 to 2^24 (default 2048).
    pub biome_region: u32,
    /// Wavelength of the secondary-patch noise, in blocks (8 to 1e6; default 160).
    pub patch_scale: f64,
    /// Columns where the patch noise exceeds this (-1 to 1) take the secondary biome
    /// (default 0.45; 1 disables patches).
    pub patch_threshold: f64,
    /// Wavelength of the river noise, in blocks (8 to 1e6; default 256).
    pub river_scale: f64,
    /// Columns where the river noise is within this of 0 are river (0 to 0.5; 0
    /// disables rivers; default 0.035).
    pub river_width: f64,
}

impl Default for VoxelConfig {
    fn default() -> Self {
        VoxelConfig {
            max_height: 64,
            sea_level: 24,
            base_height: 26,
            amplitude: 16,
            scale: 96.0,
            warp: 12.0,
            erosion_iterations: 4,
            talus_threshold: 2,
            primary_biome: None,
            biome_region: 2048,
            patch_scale: 160.0,
            patch_threshold: 0.45,
            river_scale: 256.0,
            river_width: 0.035,
        }
    }
}

/// A [`VoxelConfig`] value out of range; [`VoxelConfigError::field`] names its key.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{field}: {reason}")]
pub struct VoxelConfigError {
    field: &'static str,
    reason: String,
}

impl VoxelConfigError {
    /// The key, e.g. `voxel.sea_level`.
    pub fn field(&self) -> &'static str {
        self.field
    }

    /// Why the value was refused.
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

fn check(
    ok: bool,
    field: &'static str,
    reason: impl FnOnce() -> String,
) -> Result<(), VoxelConfigError> {
    if ok {
        Ok(())
    } else {
        Err(VoxelConfigError {
            field,
            reason: reason(),
        })
    }
}

fn range_f64(v: f64, lo: f64, hi: f64, field: &'static str) -> Result<(), VoxelConfigError> {
    check((lo..=hi).contains(&v), field, || {
        format!("must be a number from {lo} to {hi} (got {v})")
    })
}

fn range_u32(v: u32, lo: u32, hi: u32, field: &'static str) -> Result<(), VoxelConfigError> {
    check((lo..=hi).contains(&v), field, || {
        format!("must be from {lo} to {hi} (got {v})")
    })
}

impl VoxelConfig {
    /// The seed's scene: a 48 x 48-column diorama at the origin whose columns are about
    /// 12 blocks high, with water, a coast and decorations inside those 48 columns.
    pub fn diorama() -> Self {
        VoxelConfig {
            max_height: 32,
            sea_level: 10,
            base_height: 12,
            amplitude: 6,
            scale: 40.0,
            warp: 6.0,
            erosion_iterations: 4,
            talus_threshold: 2,
            primary_biome: None,
            biome_region: 0,
            patch_scale: 28.0,
            patch_threshold: 0.4,
            river_scale: 72.0,
            river_width: 0.05,
        }
    }

    /// Checks every field; the error names the first one out of range.
    pub fn validate(&self) -> Result<(), VoxelConfigError> {
        range_u32(self.max_height, 8, 255, "voxel.max_height")?;
        let top = self.max_height - 1;
        range_u32(self.sea_level, 0, top, "voxel.sea_level")?;
        range_u32(self.base_height, 1, top, "voxel.base_height")?;
        range_u32(self.amplitude, 0, 128, "voxel.amplitude")?;
        range_f64(self.scale, 1.0, 1e6, "voxel.scale")?;
        check(self.scale > 1.0, "voxel.scale", || {
            format!("must be more than 1 block (got {})", self.scale)
        })?;
        range_f64(self.warp, 0.0, 1e6, "voxel.warp")?;
        range_u32(self.erosion_iterations, 0, 32, "voxel.erosion_iterations")?;
        range_u32(self.talus_threshold, 1, 255, "voxel.talus_threshold")?;
        check(
            self.biome_region == 0 || (64..=1 << 24).contains(&self.biome_region),
            "voxel.biome_region",
            || {
                format!(
                    "must be 0 or from 64 to 16777216 (got {})",
                    self.biome_region
                )
            },
        )?;
        range_f64(self.patch_scale, 8.0, 1e6, "voxel.patch_scale")?;
        range_f64(self.patch_threshold, -1.0, 1.0, "voxel.patch_threshold")?;
        range_f64(self.river_scale, 8.0, 1e6, "voxel.river_scale")?;
        range_f64(self.river_width, 0.0, 0.5, "voxel.river_width")?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_diorama_are_valid_and_errors_name_the_field() {
        VoxelConfig::default().validate().unwrap();
        VoxelConfig::diorama().validate().unwrap();
        let d = VoxelConfig::default();
        let cases: [(VoxelConfig, &str); 14] = [
            (VoxelConfig { max_height: 4, ..d }, "voxel.max_height"),
            (
                VoxelConfig {
                    max_height: 256,
                    ..d
                },
                "voxel.max_height",
            ),
            (VoxelConfig { sea_level: 64, ..d }, "voxel.sea_level"),
            (
                VoxelConfig {
                    base_height: 0,
                    ..d
                },
                "voxel.base_height",
            ),
            (
                VoxelConfig {
                    amplitude: 129,
                    ..d
                },
                "voxel.amplitude",
            ),
            (
                VoxelConfig {
                    scale: f64::NAN,
                    ..d
                },
                "voxel.scale",
            ),
            (VoxelConfig { scale: 1.0, ..d }, "voxel.scale"),
            (VoxelConfig { warp: -1.0, ..d }, "voxel.warp"),
            (
                VoxelConfig {
                    erosion_iterations: 33,
                    ..d
                },
                "voxel.erosion_iterations",
            ),
            (
                VoxelConfig {
                    talus_threshold: 0,
                    ..d
                },
                "voxel.talus_threshold",
            ),
            (
                VoxelConfig {
                    biome_region: 63,
                    ..d
                },
                "voxel.biome_region",
            ),
            (
                VoxelConfig {
                    patch_threshold: 1.5,
                    ..d
                },
                "voxel.patch_threshold",
            ),
            (
                VoxelConfig {
                    river_scale: f64::INFINITY,
                    ..d
                },
                "voxel.river_scale",
            ),
            (
                VoxelConfig {
                    river_width: 0.6,
                    ..d
                },
                "voxel.river_width",
            ),
        ];
        for (config, field) in cases {
            let err = config.validate().unwrap_err();
            assert_eq!(err.field(), field, "{err}");
            assert!(err.to_string().starts_with(field), "{err}");
        }
        let err = VoxelConfig {
            patch_scale: 2.0,
            ..d
        }
        .validate()
        .unwrap_err();
        assert_eq!(err.field(), "voxel.patch_scale");
    }

    #[test]
    fn missing_keys_take_defaults_and_unknown_keys_are_refused() {
        let c: VoxelConfig =
            serde_json::from_str(r#"{"sea_level": 3, "primary_biome": "icy"}"#).unwrap();
        assert_eq!(c.sea_level, 3);
        assert_eq!(c.primary_biome, Some(Biome::Icy));
        assert_eq!(c.max_height, VoxelConfig::default().max_height);
        assert!(serde_json::from_str::<VoxelConfig>(r#"{"sealevel": 3}"#).is_err());
        assert!(serde_json::from_str::<VoxelConfig>(r#"{"primary_biome": "jungle"}"#).is_err());
    }
}
