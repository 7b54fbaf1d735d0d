//! The compact binary form of a [`Chunk`]: a palette of the kinds present and each
//! column as runs of one kind, bottom up, after a 4-byte column record and its run
//! count; a checksum ends it. Integers are little-endian.
//!
//! | offset | bytes | field |
//! |---:|---:|---|
//! | 0 | 4 | magic `VXC1` |
//! | 4 | 1 | format version, 1 |
//! | 5 | 8 | `cx`, i64 |
//! | 13 | 8 | `cz`, i64 |
//! | 21 | 1 | `height`: blocks per column (8 to 255) |
//! | 22 | 1 | `n`: palette length (1 to 16) |
//! | 23 | n | palette: block ids, strictly ascending |
//! | 23 + n | ... | 1024 columns, index `z * 32 + x`, each: |
//! | | 1 | column height (top of the highest solid block) |
//! | | 1 | biome id (bits 0-2), river (bit 3), decoration id + 1 or 0 (bits 4-7) |
//! | | 1 | surface block id |
//! | | 1 | water depth |
//! | | 1 | `r`: number of runs (1 to `height`) |
//! | | 2 r | runs bottom up: palette index, length (1 to 255); lengths sum to `height` |
//! | end - 4 | 4 | FNV-1a (32-bit) of every byte before it |
//!
//! A typical chunk has 3 to 8 runs per column, about 10 to 20 bytes per column, so
//! 10-20 KB against 32 x 32 x `height` bytes at one byte per block (64 KB at 64).
//! [`Chunk::decode`] refuses damaged bytes naming the part that is wrong.

use super::CHUNK;
use super::block::{Biome, BlockKind, Decoration};
use super::volume::{Chunk, Column};

const MAGIC: &[u8; 4] = b"VXC1";
const VERSION: u8 = 1;
const COLUMNS: usize = (CHUNK * CHUNK) as usize;

/// Why bytes are not a chunk.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChunkDecodeError {
    #[error("truncated: the bytes end inside the {section} (offset {offset})")]
    Truncated {
        section: &'static str,
        offset: usize,
    },
    #[error("magic: not a voxel chunk (expected \"VXC1\")")]
    Magic,
    #[error("version: format version {0} is not supported (expected 1)")]
    Version(u8),
    #[error("height: {0} blocks per column is out of range (8 to 255)")]
    Height(u8),
    #[error("palette: {0}")]
    Palette(String),
    #[error("column {index} (x {x}, z {z}): {reason}", x = .index % 32, z = .index / 32)]
    Column { index: usize, reason: String },
    #[error("checksum: stored {stored:#010x}, computed {computed:#010x} (bytes damaged)")]
    Checksum { stored: u32, computed: u32 },
    #[error("trailing: {0} bytes after the checksum")]
    Trailing(usize),
}

impl ChunkDecodeError {
    /// The part of the encoding that is wrong: `truncated`, `magic`, `version`,
    /// `height`, `palette`, `column`, `checksum` or `trailing`.
    pub fn field(&self) -> &'static str {
        match self {
            Self::Truncated { .. } => "truncated",
            Self::Magic => "magic",
            Self::Version(_) => "version",
            Self::Height(_) => "height",
            Self::Palette(_) => "palette",
            Self::Column { .. } => "column",
            Self::Checksum { .. } => "checksum",
            Self::Trailing(_) => "trailing",
        }
    }
}

/// FNV-1a, 32 bits.
fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5u32, |h, &b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, section: &'static str) -> Result<&'a [u8], ChunkDecodeError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let Some(end) = end else {
            return Err(ChunkDecodeError::Truncated {
                section,
                offset: self.bytes.len(),
            });
        };
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn u8(&mut self, section: &'static str) -> Result<u8, ChunkDecodeError> {
        Ok(self.take(1, section)?[0])
    }

    fn i64(&mut self, section: &'static str) -> Result<i64, ChunkDecodeError> {
        let mut b = [0u8; 8];
        b.copy_from_slice(self.take(8, section)?);
        Ok(i64::from_le_bytes(b))
    }
}

impl Chunk {
    /// The chunk's binary form (layout in the module doc).
    pub fn encode(&self) -> Vec<u8> {
        let h = self.height as usize;
        let mut present = [false; 16];
        for &b in &self.blocks {
            present[usize::from(b.id())] = true;
        }
        let palette: Vec<u8> = (0..16u8).filter(|&i| present[usize::from(i)]).collect();
        let mut index = [0u8; 16];
        for (i, &id) in palette.iter().enumerate() {
            index[usize::from(id)] = i as u8;
        }
        let mut out = Vec::with_capacity(16 * 1024);
        out.extend_from_slice(MAGIC);
        out.push(VERSION);
        out.extend_from_slice(&self.cx.to_le_bytes());
        out.extend_from_slice(&self.cz.to_le_bytes());
        out.push(self.height as u8);
        out.push(palette.len() as u8);
        out.extend_from_slice(&palette);
        let mut runs: Vec<(u8, u8)> = Vec::with_capacity(h);
        for (i, c) in self.columns.iter().enumerate() {
            out.push(c.height as u8);
            let deco = c.decoration.map_or(0, |d| d.id() + 1);
            out.push(c.biome.id() | (u8::from(c.river) << 3) | (deco << 4));
            out.push(c.surface.id());
            out.push(c.water_depth as u8);
            runs.clear();
            for &b in &self.blocks[i * h..(i + 1) * h] {
                let p = index[usize::from(b.id())];
                match runs.last_mut() {
                    Some((k, n)) if *k == p => *n += 1,
                    _ => runs.push((p, 1)),
                }
            }
            out.push(runs.len() as u8);
            for &(k, n) in &runs {
                out.push(k);
                out.push(n);
            }
        }
        let sum = fnv1a(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// The chunk encoded in `bytes`, or what is wrong with them.
    pub fn decode(bytes: &[u8]) -> Result<Chunk, ChunkDecodeError> {
        let mut r = Reader { bytes, at: 0 };
        if r.take(4, "magic")? != MAGIC {
            return Err(ChunkDecodeError::Magic);
        }
        let version = r.u8("version")?;
        if version != VERSION {
            return Err(ChunkDecodeError::Version(version));
        }
        let cx = r.i64("cx")?;
        let cz = r.i64("cz")?;
        let height = r.u8("height")?;
        if height < 8 {
            return Err(ChunkDecodeError::Height(height));
        }
        let h = usize::from(height);
        let n = usize::from(r.u8("palette")?);
        if n == 0 || n > 16 {
            return Err(ChunkDecodeError::Palette(format!("length {n} (1 to 16)")));
        }
        let mut palette = Vec::with_capacity(n);
        for &id in r.take(n, "palette")? {
            let kind = BlockKind::from_id(id)
                .ok_or_else(|| ChunkDecodeError::Palette(format!("unknown block id {id}")))?;
            if palette.last().is_some_and(|&k| k >= kind) {
                return Err(ChunkDecodeError::Palette(
                    "ids not strictly ascending".into(),
                ));
            }
            palette.push(kind);
        }
        let mut blocks = Vec::with_capacity(COLUMNS * h);
        let mut columns = Vec::with_capacity(COLUMNS);
        for index in 0..COLUMNS {
            let bad = |reason: String| ChunkDecodeError::Column { index, reason };
            let rec = r.take(4, "column record")?;
            let (col_h, packed, surface, water) = (rec[0], rec[1], rec[2], rec[3]);
            let biome = Biome::from_id(packed & 7)
                .ok_or_else(|| bad(format!("unknown biome id {}", packed & 7)))?;
            let decoration = match packed >> 4 {
                0 => None,
                d => Some(
                    Decoration::from_id(d - 1)
                        .ok_or_else(|| bad(format!("unknown decoration id {}", d - 1)))?,
                ),
            };
            let surface = BlockKind::from_id(surface)
                .ok_or_else(|| bad(format!("unknown surface block id {surface}")))?;
            let runs = usize::from(r.u8("column runs")?);
            if runs == 0 {
                return Err(bad("no runs".into()));
            }
            let start = blocks.len();
            for &[k, len] in r.take(2 * runs, "column runs")?.as_chunks::<2>().0 {
                let kind = *palette
                    .get(usize::from(k))
                    .ok_or_else(|| bad(format!("palette index {k} beyond the palette of {n}")))?;
                if len == 0 || blocks.len() - start + usize::from(len) > h {
                    return Err(bad(format!("runs exceed the column's {h} blocks")));
                }
                blocks.extend(std::iter::repeat_n(kind, usize::from(len)));
            }
            if blocks.len() - start != h {
                return Err(bad(format!(
                    "runs cover {} blocks, not {h}",
                    blocks.len() - start
                )));
            }
            let top = blocks[start..]
                .iter()
                .rposition(|b| b.solid())
                .map_or(0, |y| y + 1);
            if top != usize::from(col_h) {
                return Err(bad(format!(
                    "height {col_h} but the highest solid block tops at {top}"
                )));
            }
            columns.push(Column {
                height: i32::from(col_h),
                biome,
                surface,
                decoration,
                water_depth: u32::from(water),
                river: packed & 8 != 0,
            });
        }
        let body = r.at;
        let mut stored = [0u8; 4];
        stored.copy_from_slice(r.take(4, "checksum")?);
        let stored = u32::from_le_bytes(stored);
        if r.at != bytes.len() {
            return Err(ChunkDecodeError::Trailing(bytes.len() - r.at));
        }
        let computed = fnv1a(&bytes[..body]);
        if stored != computed {
            return Err(ChunkDecodeError::Checksum { stored, computed });
        }
        Ok(Chunk {
            cx,
            cz,
            height: u32::from(height),
            blocks,
            columns,
        })
    }
}
