//! A deterministic generator of large VALID full-menu submissions, for the benchmark and for the
//! large-menu test. No external crates: a xorshift drives every choice, so the same target size
//! always yields the same text.
//!
//! The menu is realistic in shape: categories of 15 to 60 products, every product with an https
//! image, most with modifier groups drawn from a pool of brand-level groups that are declared
//! identically wherever they are shared (as the contract requires), some with a group of their
//! own, and names with accents, CJK and emoji. Pretty-printed with two-space indentation, as a
//! file saved by a POS export or `JSON.stringify(menu, null, 2)` would be.

#![allow(dead_code)]

use std::fmt::Write as _;

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next() % (hi - lo + 1) as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.range(0, items.len() - 1)]
    }
}

const CATEGORY_NAMES: &[&str] = &[
    "Burgers",
    "Pizzas",
    "Ensaladas",
    "Bebidas",
    "Postres",
    "Café & Té",
    "Sushi 寿司",
    "Wraps",
    "Desayunos",
    "Combos 🍔",
    "Smørrebrød",
    "Crêperie",
];
const DISHES: &[&str] = &[
    "Burger",
    "Cheeseburger",
    "Pizza Margherita",
    "Crème brûlée",
    "Jalapeño poppers",
    "Açaí bowl",
    "Phở bò",
    "Café con leche",
    "Limonada",
    "Smoothie 🍓",
    "Nigiri サーモン",
    "Ensalada César",
    "Tarte flambée",
    "Pão de queijo",
    "Küsschen",
    "Wrap de pollo",
];
const ADJECTIVES: &[&str] = &["Clásico", "Doble", "Picante 🌶️", "Vegano", "Grande", "Mini", "Especial", "de la casa", "Ahumado", "Trufado"];
const DESCRIPTIONS: &[&str] = &[
    "Hecho al momento con ingredientes frescos.",
    "Receta de la casa, servida con papas.",
    "Sin gluten. Contiene lácteos.",
    "Ideal para compartir 🧡",
    "Con salsa especial y pan brioche.",
    "Edición limitada de temporada.",
];
const OPTION_NAMES: &[&str] = &[
    "Pequeño",
    "Mediano",
    "Grande",
    "Extra queso",
    "Sin cebolla",
    "Tocino",
    "Aguacate",
    "Jalapeños",
    "Salsa BBQ",
    "Mayonesa",
    "Pan integral",
    "Hielo",
    "Limón 🍋",
    "Leche de avena",
];
const TAXES: &[&str] = &["0", "0.15", "0.18"];

fn price(rng: &mut XorShift, lo: usize, hi: usize) -> String {
    let cents = rng.range(lo, hi);
    if cents % 100 == 0 {
        format!("{}", cents / 100)
    } else {
        format!("{}.{:02}", cents / 100, cents % 100)
    }
}

/// Writes a modifier group at `indent` spaces (the group object's opening brace is indented by the caller).
fn group(out: &mut String, rng: &mut XorShift, code: &str, indent: usize) {
    let pad = " ".repeat(indent);
    let radio = rng.next() % 2 == 0;
    let n = rng.range(2, 6);
    let (min, max) = if radio { (rng.range(0, 1), 1) } else { (rng.range(0, 1), rng.range(1, n)) };
    let defaults_allowed = if radio { 1 } else { max };
    let _ = write!(
        out,
        "{{\n{pad}  \"remoteCode\": \"{code}\",\n{pad}  \"name\": \"{}\",\n{pad}  \"min\": {min},\n{pad}  \"max\": {max},\n{pad}  \"type\": \"{}\",\n{pad}  \"options\": [",
        if radio { "Elige tu tamaño" } else { "Extras" },
        if radio { "radio" } else { "checkbox" }
    );
    let mut defaults = 0;
    for i in 0..n {
        let is_default = defaults < defaults_allowed && rng.next() % 3 == 0;
        if is_default {
            defaults += 1;
        }
        let max_per_order = if rng.next() % 2 == 0 { "null".to_string() } else { rng.range(1, 5).to_string() };
        let _ = write!(
            out,
            "{}\n{pad}    {{\n{pad}      \"remoteCode\": \"{code}-O{i}\",\n{pad}      \"name\": \"{}\",\n{pad}      \"price\": {},\n{pad}      \"isDefault\": {is_default},\n{pad}      \"maxPerOrder\": {max_per_order}\n{pad}    }}",
            if i == 0 { "" } else { "," },
            rng.pick(OPTION_NAMES),
            price(rng, 0, 350),
        );
    }
    let _ = write!(out, "\n{pad}  ]\n{pad}}}");
}

/// A valid menu of at least `target_bytes` bytes (a little more: the last category is completed).
pub fn generate(target_bytes: usize) -> String {
    let mut rng = XorShift(0x2545_F491_4F6C_DD1D);
    let mut out = String::with_capacity(target_bytes + 64 * 1024);
    // The brand-level pool of shared groups, rendered once so that every declaration is identical.
    let pool: Vec<String> = (0..40)
        .map(|g| {
            let mut s = String::new();
            group(&mut s, &mut rng, &format!("G{g}"), 12);
            s
        })
        .collect();
    out.push_str("{\n  \"categories\": [");
    let mut product_no = 0usize;
    let mut category_no = 0usize;
    while out.len() < target_bytes || category_no == 0 {
        let products = rng.range(15, 60);
        let _ = write!(
            out,
            "{}\n    {{\n      \"remoteCode\": \"CAT-{category_no}\",\n      \"name\": \"{} {category_no}\",\n      \"position\": {category_no},\n      \"products\": [",
            if category_no == 0 { "" } else { "," },
            rng.pick(CATEGORY_NAMES)
        );
        for p in 0..products {
            let code = format!("SKU-{product_no:06}");
            let _ = write!(
                out,
                "{}\n        {{\n          \"remoteCode\": \"{code}\",\n          \"name\": \"{} {} #{p}\",\n          \"description\": \"{}\",\n          \"price\": {},\n          \"tax\": {},\n          \"maxPerOrder\": {},\n          \"image\": \"https://cdn.example.com/menu/{code}.png\",\n          \"modifierGroups\": [",
                if p == 0 { "" } else { "," },
                rng.pick(DISHES),
                rng.pick(ADJECTIVES),
                rng.pick(DESCRIPTIONS),
                price(&mut rng, 100, 4500),
                rng.pick(TAXES),
                rng.range(1, 25),
            );
            // 0 to 3 distinct shared groups, and sometimes one of the product's own.
            let shared = rng.range(0, 3);
            let first = rng.range(0, pool.len() - 1);
            let mut n = 0;
            for k in 0..shared {
                let g = (first + k * 7) % pool.len();
                let _ = write!(out, "{}\n            {}", if n == 0 { "" } else { "," }, pool[g]);
                n += 1;
            }
            if rng.next() % 4 == 0 {
                let _ = write!(out, "{}\n            ", if n == 0 { "" } else { "," });
                group(&mut out, &mut rng, &format!("{code}-OWN"), 12);
                n += 1;
            }
            out.push_str(if n == 0 { "]\n        }" } else { "\n          ]\n        }" });
            product_no += 1;
        }
        out.push_str("\n      ]\n    }");
        category_no += 1;
    }
    out.push_str("\n  ]\n}\n");
    out
}
