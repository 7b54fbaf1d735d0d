//! Prints a quick look at one voxel chunk: column heights as digits and block counts.
use terrain_core::voxel::{BlockKind, Voxel, VoxelConfig};

fn main() {
    let seed = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let v = Voxel::new(seed, VoxelConfig::default()).unwrap();
    let t = std::time::Instant::now();
    let c = v.chunk(0, 0);
    println!("chunk in {:?}", t.elapsed());
    for z in 0..32 {
        let row: String = (0..32)
            .map(|x| {
                let col = c.columns()[z * 32 + x];
                if col.water_depth > 0 {
                    '~'
                } else {
                    char::from(b'a' + (col.height % 26) as u8)
                }
            })
            .collect();
        println!("{row}");
    }
    let mut counts = [0u64; 16];
    for x in 0..32 {
        for z in 0..32 {
            for &b in c.column_blocks(x, z) {
                counts[b.id() as usize] += 1;
            }
        }
    }
    for k in BlockKind::ALL {
        if counts[k.id() as usize] > 0 {
            println!("{:10} {}", k.name(), counts[k.id() as usize]);
        }
    }
    println!("{:?}", c.columns()[0]);
}
