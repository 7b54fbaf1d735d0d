//! The closed sets a voxel world is made of: the block palette ([`BlockKind`] with its
//! [`BlockInfo`]), the [`Biome`]s and the [`Decoration`]s.
//!
//! | id | kind | sRGB colour | solid | occludes | jitter |
//! |---:|------|-------------|:-----:|:--------:|-------:|
//! | 0 | air | - | no | no | 0 |
//! | 1 | stone | 125 125 125 | yes | yes | 0.05 |
//! | 2 | dirt | 134 96 67 | yes | yes | 0.06 |
//! | 3 | grass | 95 159 53 | yes | yes | 0.08 |
//! | 4 | moss | 58 120 48 | yes | yes | 0.08 |
//! | 5 | sand | 219 205 153 | yes | yes | 0.04 |
//! | 6 | snow | 240 244 248 | yes | yes | 0 |
//! | 7 | water | 48 96 200 | no | no | 0 |
//! | 8 | ice | 160 200 240 | yes | no | 0 |
//! | 9 | wood | 102 76 46 | yes | yes | 0.06 |
//! | 10 | leaves | 60 140 50 | no | no | 0.1 |
//! | 11 | cactus | 70 140 60 | yes | yes | 0.06 |
//! | 12 | flower | 220 60 80 | no | no | 0.1 |
//! | 13 | rock | 110 110 115 | yes | yes | 0.07 |
//! | 14 | lily_pad | 70 150 60 | no | no | 0.08 |
//! | 15 | packed_ice | 140 180 230 | yes | yes | 0 |
//!
//! *Solid* blocks are the ones a column's height counts (you stand on them); *occluding*
//! blocks hide what is behind them, so a block whose six neighbours all occlude is never
//! drawn. Leaves, flowers and lily pads are neither: heights pass through foliage.

/// What one block of the palette looks like and how it behaves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlockInfo {
    /// Base colour, sRGB.
    pub colour: [u8; 3],
    /// Counted by the column's height.
    pub solid: bool,
    /// Hides the faces of its neighbours (opaque and solid).
    pub occludes: bool,
    /// Colour-jitter amplitude: an instance's colour is the base colour times
    /// `1 + (hash3 * 2 - 1) * jitter`.
    pub jitter: f32,
}

/// A block kind: the fixed palette of voxel worlds, identified by its `id` on the wire.
#[repr(u8)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum BlockKind {
    #[default]
    Air = 0,
    Stone = 1,
    Dirt = 2,
    Grass = 3,
    Moss = 4,
    Sand = 5,
    Snow = 6,
    Water = 7,
    Ice = 8,
    Wood = 9,
    Leaves = 10,
    Cactus = 11,
    Flower = 12,
    Rock = 13,
    LilyPad = 14,
    PackedIce = 15,
}

crate::names::named_enum!(BlockKind, "block kind", {
    Air => "air",
    Stone => "stone",
    Dirt => "dirt",
    Grass => "grass",
    Moss => "moss",
    Sand => "sand",
    Snow => "snow",
    Water => "water",
    Ice => "ice",
    Wood => "wood",
    Leaves => "leaves",
    Cactus => "cactus",
    Flower => "flower",
    Rock => "rock",
    LilyPad => "lily_pad",
    PackedIce => "packed_ice",
});

const fn info(colour: [u8; 3], solid: bool, occludes: bool, jitter: f32) -> BlockInfo {
    BlockInfo {
        colour,
        solid,
        occludes,
        jitter,
    }
}

/// The palette, indexed by id (the table in the module doc).
const PALETTE: [BlockInfo; 16] = [
    info([0, 0, 0], false, false, 0.0),
    info([125, 125, 125], true, true, 0.05),
    info([134, 96, 67], true, true, 0.06),
    info([95, 159, 53], true, true, 0.08),
    info([58, 120, 48], true, true, 0.08),
    info([219, 205, 153], true, true, 0.04),
    info([240, 244, 248], true, true, 0.0),
    info([48, 96, 200], false, false, 0.0),
    info([160, 200, 240], true, false, 0.0),
    info([102, 76, 46], true, true, 0.06),
    info([60, 140, 50], false, false, 0.1),
    info([70, 140, 60], true, true, 0.06),
    info([220, 60, 80], false, false, 0.1),
    info([110, 110, 115], true, true, 0.07),
    info([70, 150, 60], false, false, 0.08),
    info([140, 180, 230], true, true, 0.0),
];

impl BlockKind {
    /// The id on the wire and in the chunk encoding.
    pub const fn id(self) -> u8 {
        self as u8
    }

    /// The kind with `id`, if the palette has one.
    pub fn from_id(id: u8) -> Option<Self> {
        Self::ALL.get(usize::from(id)).copied()
    }

    /// The kind's name (`lily_pad`, ...).
    pub const fn name(self) -> &'static str {
        self.as_str()
    }

    /// Colour, solidity, occlusion and jitter of the kind.
    pub const fn info(self) -> BlockInfo {
        PALETTE[self as usize]
    }

    /// Counted by heights.
    pub const fn solid(self) -> bool {
        self.info().solid
    }

    /// Hides its neighbours' faces.
    pub const fn occludes(self) -> bool {
        self.info().occludes
    }
}

/// A biome: which surface, water and decorations a column gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Biome {
    /// Sand and sandstone-coloured dunes, cactus.
    Desert,
    /// Grass, flowers, rocks, scattered trees.
    Temperate,
    /// Moss, dense trees, lily pads on the water.
    Humid,
    /// Snow over dirt, rocks and a few trees; open water.
    Tundra,
    /// Snow, frozen water (an ice sheet at sea level), ice spikes.
    Icy,
}

crate::names::named_enum!(Biome, "biome", {
    Desert => "desert",
    Temperate => "temperate",
    Humid => "humid",
    Tundra => "tundra",
    Icy => "icy",
});

impl Biome {
    /// The id on the wire (the order of [`Biome::ALL`]).
    pub const fn id(self) -> u8 {
        self as u8
    }

    /// The biome with `id`.
    pub fn from_id(id: u8) -> Option<Self> {
        Self::ALL.get(usize::from(id)).copied()
    }

    /// The configuration name (`desert`, ...).
    pub const fn name(self) -> &'static str {
        self.as_str()
    }

    /// The biome of secondary patches inside a region whose primary biome is `self`:
    /// an oasis of temperate in a desert, humid glades in temperate land, temperate
    /// clearings in humid land, icy patches in a tundra, tundra in icy land.
    pub const fn secondary(self) -> Biome {
        match self {
            Biome::Desert => Biome::Temperate,
            Biome::Temperate => Biome::Humid,
            Biome::Humid => Biome::Temperate,
            Biome::Tundra => Biome::Icy,
            Biome::Icy => Biome::Tundra,
        }
    }

    /// The top block of dry land.
    pub const fn land_surface(self) -> BlockKind {
        match self {
            Biome::Desert => BlockKind::Sand,
            Biome::Temperate => BlockKind::Grass,
            Biome::Humid => BlockKind::Moss,
            Biome::Tundra | Biome::Icy => BlockKind::Snow,
        }
    }

    /// The blocks under the surface, down to stone.
    pub const fn subsoil(self) -> BlockKind {
        match self {
            Biome::Desert => BlockKind::Sand,
            _ => BlockKind::Dirt,
        }
    }

    /// Whether water freezes: the top water block is ice.
    pub const fn frozen(self) -> bool {
        matches!(self, Biome::Icy)
    }
}

/// An object standing on a column, chosen by the column's hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Decoration {
    /// 1 to 3 cactus blocks on desert sand.
    Cactus,
    /// One flower on temperate or humid ground.
    Flower,
    /// One rock on temperate or tundra ground.
    Rock,
    /// A lily pad on humid water.
    LilyPad,
    /// A 3 to 6 block spike of packed ice on icy land.
    IceSpike,
    /// A trunk of 4 to 5 wood blocks under a canopy of leaves reaching 2 columns.
    Tree,
}

crate::names::named_enum!(Decoration, "decoration", {
    Cactus => "cactus",
    Flower => "flower",
    Rock => "rock",
    LilyPad => "lily_pad",
    IceSpike => "ice_spike",
    Tree => "tree",
});

impl Decoration {
    /// The id on the wire (the order of [`Decoration::ALL`]).
    pub const fn id(self) -> u8 {
        self as u8
    }

    /// The decoration with `id`.
    pub fn from_id(id: u8) -> Option<Self> {
        Self::ALL.get(usize::from(id)).copied()
    }

    /// The name (`ice_spike`, ...).
    pub const fn name(self) -> &'static str {
        self.as_str()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_the_palette_follows_the_rules() {
        for (i, &k) in BlockKind::ALL.iter().enumerate() {
            assert_eq!(usize::from(k.id()), i);
            assert_eq!(BlockKind::from_id(k.id()), Some(k));
            let info = k.info();
            if info.occludes {
                assert!(info.solid, "{k:?}: occluding blocks are solid");
            }
            assert!((0.0..=0.1).contains(&info.jitter));
        }
        assert_eq!(BlockKind::from_id(16), None);
        for k in [
            BlockKind::Water,
            BlockKind::Ice,
            BlockKind::Leaves,
            BlockKind::Flower,
            BlockKind::LilyPad,
        ] {
            assert!(!k.occludes(), "{k:?}");
        }
        for k in [BlockKind::Water, BlockKind::Ice, BlockKind::Snow] {
            assert_eq!(k.info().jitter, 0.0);
        }
        for k in [BlockKind::Grass, BlockKind::Leaves, BlockKind::Flower] {
            assert!((0.04..=0.1).contains(&k.info().jitter));
        }
        for &b in Biome::ALL {
            assert_eq!(Biome::from_id(b.id()), Some(b));
            assert_eq!(b.name().parse::<Biome>(), Ok(b));
        }
        for &d in Decoration::ALL {
            assert_eq!(Decoration::from_id(d.id()), Some(d));
        }
    }
}
