//! `transactions`: property sales shaped like France's DVF open data ("demandes de valeurs
//! foncières", the bulk-size tuning study in docs/architecture.md), as CSV with a header or as mapped documents.
//!
//! Rows look like the real file: real communes with their INSEE and postal codes and rough
//! coordinates, a price per m² per commune, prices correlated with built surface, mutations
//! that span two rows (a flat and its parking space share id, date and price), and the empty
//! cells DVF has (no street number, no built surface for land, no coordinates now and then).

use super::csvdoc::{ColumnType, CsvMapping, CsvToJson};
use super::text::{civil_from_days, days_from_civil, push_fixed, push_fixed_signed, push_u64};
use super::{CorpusError, DocSource, Item};
use crate::rng::Rng;

use ColumnType::{Date, Double, Keyword, Long};

/// The DVF columns we generate, and how each maps to a document field.
pub const MAPPING: CsvMapping = CsvMapping {
    columns: &[
        ("id_mutation", Keyword),
        ("date_mutation", Date),
        ("numero_disposition", Long),
        ("nature_mutation", Keyword),
        ("valeur_fonciere", Double),
        ("adresse_numero", Long),
        ("adresse_nom_voie", Keyword),
        ("code_postal", Keyword),
        ("code_commune", Keyword),
        ("nom_commune", Keyword),
        ("code_departement", Keyword),
        ("type_local", Keyword),
        ("surface_reelle_bati", Long),
        ("nombre_pieces_principales", Long),
        ("surface_terrain", Long),
        ("longitude", Double),
        ("latitude", Double),
    ],
    geo: Some(("longitude", "latitude", "location")),
};

/// The CSV header line (no newline).
pub fn csv_header() -> String {
    MAPPING
        .columns
        .iter()
        .map(|(n, _)| *n)
        .collect::<Vec<_>>()
        .join(",")
}

/// (name, code_postal, code_commune (INSEE), code_departement, lon, lat, €/m², weight)
type Commune = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    f64,
    f64,
    f64,
    u32,
);

const COMMUNES: &[Commune] = &[
    (
        "Paris 15e Arrondissement",
        "75015",
        "75115",
        "75",
        2.2988,
        48.8412,
        10_200.0,
        30,
    ),
    (
        "Paris 11e Arrondissement",
        "75011",
        "75111",
        "75",
        2.3795,
        48.8594,
        10_400.0,
        25,
    ),
    (
        "Paris 18e Arrondissement",
        "75018",
        "75118",
        "75",
        2.3488,
        48.8925,
        9_300.0,
        25,
    ),
    (
        "Marseille 8e Arrondissement",
        "13008",
        "13208",
        "13",
        5.3850,
        43.2420,
        4_500.0,
        18,
    ),
    (
        "Marseille 13e Arrondissement",
        "13013",
        "13213",
        "13",
        5.4270,
        43.3480,
        2_900.0,
        14,
    ),
    (
        "Lyon 3e Arrondissement",
        "69003",
        "69383",
        "69",
        4.8500,
        45.7597,
        5_200.0,
        18,
    ),
    (
        "Lyon 7e Arrondissement",
        "69007",
        "69387",
        "69",
        4.8397,
        45.7456,
        5_000.0,
        14,
    ),
    (
        "Villeurbanne",
        "69100",
        "69266",
        "69",
        4.8798,
        45.7719,
        4_000.0,
        12,
    ),
    (
        "Toulouse", "31000", "31555", "31", 1.4442, 43.6047, 3_800.0, 24,
    ),
    ("Nice", "06000", "06088", "06", 7.2620, 43.7102, 5_200.0, 18),
    (
        "Nantes", "44000", "44109", "44", -1.5536, 47.2184, 3_900.0, 17,
    ),
    (
        "Strasbourg",
        "67000",
        "67482",
        "67",
        7.7521,
        48.5734,
        3_600.0,
        14,
    ),
    (
        "Montpellier",
        "34000",
        "34172",
        "34",
        3.8767,
        43.6108,
        3_700.0,
        16,
    ),
    (
        "Bordeaux", "33000", "33063", "33", -0.5792, 44.8378, 4_600.0, 17,
    ),
    (
        "Lille", "59000", "59350", "59", 3.0573, 50.6292, 3_600.0, 14,
    ),
    (
        "Rennes", "35000", "35238", "35", -1.6778, 48.1173, 4_100.0, 13,
    ),
    ("Reims", "51100", "51454", "51", 4.0317, 49.2583, 2_400.0, 9),
    (
        "Le Havre", "76600", "76351", "76", 0.1079, 49.4944, 1_900.0, 9,
    ),
    (
        "Saint-Étienne",
        "42000",
        "42218",
        "42",
        4.3872,
        45.4397,
        1_200.0,
        9,
    ),
    (
        "Toulon", "83000", "83137", "83", 5.9280, 43.1242, 3_100.0, 9,
    ),
    (
        "Grenoble", "38000", "38185", "38", 5.7245, 45.1885, 2_600.0, 9,
    ),
    ("Dijon", "21000", "21231", "21", 5.0415, 47.3220, 2_700.0, 8),
    (
        "Angers", "49000", "49007", "49", -0.5632, 47.4784, 3_000.0, 8,
    ),
    ("Nîmes", "30000", "30189", "30", 4.3601, 43.8367, 2_300.0, 7),
    (
        "Clermont-Ferrand",
        "63000",
        "63113",
        "63",
        3.0870,
        45.7772,
        2_300.0,
        7,
    ),
    (
        "Le Mans", "72000", "72181", "72", 0.1996, 48.0061, 1_800.0, 7,
    ),
    (
        "Aix-en-Provence",
        "13100",
        "13001",
        "13",
        5.4474,
        43.5297,
        5_000.0,
        7,
    ),
    (
        "Brest", "29200", "29019", "29", -4.4861, 48.3904, 1_900.0, 7,
    ),
    ("Tours", "37000", "37261", "37", 0.6848, 47.3941, 2_700.0, 7),
    (
        "Amiens", "80000", "80021", "80", 2.2958, 49.8941, 2_300.0, 6,
    ),
    (
        "Limoges", "87000", "87085", "87", 1.2611, 45.8336, 1_600.0, 6,
    ),
    (
        "Annecy", "74000", "74010", "74", 6.1294, 45.8992, 5_300.0, 6,
    ),
    (
        "Perpignan",
        "66000",
        "66136",
        "66",
        2.8948,
        42.6887,
        1_800.0,
        6,
    ),
    ("Metz", "57000", "57463", "57", 6.1757, 49.1193, 2_200.0, 6),
    (
        "Besançon",
        "25000",
        "25056",
        "25",
        6.0241,
        47.2378,
        2_000.0,
        5,
    ),
    (
        "Orléans", "45000", "45234", "45", 1.9093, 47.9030, 2_400.0, 5,
    ),
    ("Rouen", "76000", "76540", "76", 1.0993, 49.4432, 2_600.0, 6),
    ("Caen", "14000", "14118", "14", -0.3707, 49.1829, 2_700.0, 5),
    ("Nancy", "54000", "54395", "54", 6.1844, 48.6921, 2_300.0, 5),
    (
        "Avignon", "84000", "84007", "84", 4.8057, 43.9493, 2_200.0, 5,
    ),
    (
        "Poitiers", "86000", "86194", "86", 0.3404, 46.5802, 1_900.0, 4,
    ),
    (
        "La Rochelle",
        "17000",
        "17300",
        "17",
        -1.1511,
        46.1603,
        4_300.0,
        4,
    ),
    ("Pau", "64000", "64445", "64", -0.3708, 43.2951, 1_900.0, 4),
    (
        "Vannes", "56000", "56260", "56", -2.7603, 47.6582, 3_600.0, 4,
    ),
    (
        "Chartres", "28000", "28085", "28", 1.4890, 48.4439, 2_300.0, 3,
    ),
    (
        "Bourg-en-Bresse",
        "01000",
        "01053",
        "01",
        5.2256,
        46.2052,
        2_200.0,
        3,
    ),
    (
        "Ajaccio", "20000", "2A004", "2A", 8.7369, 41.9192, 3_500.0, 3,
    ),
    (
        "Bastia", "20200", "2B033", "2B", 9.4500, 42.6970, 2_900.0, 2,
    ),
    (
        "Aurillac", "15000", "15014", "15", 2.4444, 44.9264, 1_300.0, 2,
    ),
    ("Mende", "48000", "48095", "48", 3.4997, 44.5181, 1_500.0, 1),
    ("Guéret", "23000", "23096", "23", 1.8707, 46.1714, 900.0, 1),
    (
        "Saint-Denis",
        "97400",
        "97411",
        "974",
        55.4504,
        -20.8823,
        2_700.0,
        3,
    ),
];

const VOIE_TYPES: &[&str] = &[
    "RUE", "RUE", "RUE", "AV", "BD", "CHE", "IMP", "ALL", "PL", "RTE",
];
const VOIE_NAMES: &[&str] = &[
    "DE LA REPUBLIQUE",
    "VICTOR HUGO",
    "JEAN JAURES",
    "DU GENERAL DE GAULLE",
    "PASTEUR",
    "DES LILAS",
    "DE LA GARE",
    "DU MOULIN",
    "DE L EGLISE",
    "GAMBETTA",
    "JULES FERRY",
    "DES ECOLES",
    "DU STADE",
    "NATIONALE",
    "DE PARIS",
    "CARNOT",
    "DE VERDUN",
    "FOCH",
    "DES ROSES",
    "DU CHATEAU",
    "DE LA MAIRIE",
    "DE LA PAIX",
    "DU 8 MAI 1945",
    "DE LA LIBERATION",
    "DES TILLEULS",
    "DU COMMERCE",
    "EMILE ZOLA",
    "ANATOLE FRANCE",
    "DES PEUPLIERS",
    "DU PORT",
    "SAINT MARTIN",
    "DES ACACIAS",
    "DE LA FONTAINE",
    "DU CHAMP DE MARS",
    "LOUIS BLANC",
    "DES CHENES",
    "DU PRESIDENT WILSON",
    "GEORGES CLEMENCEAU",
    "DES VIGNES",
    "DU CANAL",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Local {
    Appartement,
    Maison,
    Dependance,
    Industriel,
    /// Land only: no `type_local`.
    None,
}

impl Local {
    fn text(self) -> &'static str {
        match self {
            Local::Appartement => "Appartement",
            Local::Maison => "Maison",
            Local::Dependance => "Dépendance",
            Local::Industriel => "Local industriel. commercial ou assimilé",
            Local::None => "",
        }
    }
}

/// One generated row; `None` is an empty cell.
#[derive(Debug, Clone, Copy)]
struct Row {
    mutation: u64,
    day: i64,
    disposition: u64,
    nature: &'static str,
    /// Cents.
    valeur: Option<u64>,
    numero: Option<u64>,
    voie_type: &'static str,
    voie_name: &'static str,
    commune: usize,
    local: Local,
    surface_bati: Option<u64>,
    pieces: Option<u64>,
    terrain: Option<u64>,
    /// Micro-degrees (longitude, latitude).
    coords: Option<(i64, i64)>,
}

/// What to generate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransactionsSpec {
    pub seed: u64,
    pub docs: u64,
    /// Mutations are dated within this calendar year.
    pub year: i32,
}

impl TransactionsSpec {
    pub fn new(seed: u64, docs: u64) -> Self {
        TransactionsSpec {
            seed,
            docs,
            year: 2023,
        }
    }
}

/// The `transactions` generator. As a [`DocSource`] it yields mapped documents; use
/// [`Transactions::next_csv_into`] for CSV records.
#[derive(Debug)]
pub struct Transactions {
    spec: TransactionsSpec,
    produced: u64,
    rng: Rng,
    /// Cumulative commune weights for weighted choice.
    cumulative: Vec<u32>,
    pending: Option<Row>,
    mutation: u64,
    first_day: i64,
    days_in_year: i64,
    /// Scratch: the current row's cells and their end offsets.
    cells: Vec<u8>,
    ends: Vec<usize>,
    to_json: CsvToJson,
}

impl Transactions {
    pub fn new(spec: TransactionsSpec) -> Result<Self, CorpusError> {
        if spec.docs == 0 {
            return Err(CorpusError::Invalid("--docs must be at least 1".into()));
        }
        if !(1900..=2999).contains(&spec.year) {
            return Err(CorpusError::Invalid(format!(
                "year {} is out of range 1900..=2999",
                spec.year
            )));
        }
        let mut acc = 0;
        let cumulative = COMMUNES
            .iter()
            .map(|c| {
                acc += c.7;
                acc
            })
            .collect();
        let first_day = days_from_civil(spec.year as i64, 1, 1);
        let days_in_year = days_from_civil(spec.year as i64 + 1, 1, 1) - first_day;
        Ok(Transactions {
            rng: Rng::new(spec.seed, 21),
            spec,
            produced: 0,
            cumulative,
            pending: None,
            mutation: 0,
            first_day,
            days_in_year,
            cells: Vec::with_capacity(256),
            ends: Vec::with_capacity(MAPPING.columns.len()),
            to_json: CsvToJson::typed(&MAPPING),
        })
    }

    fn pick_commune(&mut self) -> usize {
        let total = *self.cumulative.last().unwrap_or(&1) as u64;
        let x = self.rng.below(total) as u32;
        self.cumulative.partition_point(|&c| c <= x)
    }

    fn next_row(&mut self) -> Option<Row> {
        if self.produced >= self.spec.docs {
            return None;
        }
        self.produced += 1;
        if let Some(row) = self.pending.take() {
            return Some(row);
        }
        self.mutation += 1;
        let r = &mut self.rng;
        // Dates advance through the year with the row count, a few days of jitter.
        let progress = (self.produced - 1) as i64 * self.days_in_year / self.spec.docs as i64;
        let day = (progress + r.below(5) as i64 - 2).clamp(0, self.days_in_year - 1);
        let nature_roll = r.below(1000);
        let nature = match nature_roll {
            0..=879 => "Vente",
            880..=939 => "Vente en l'état futur d'achèvement",
            940..=959 => "Vente terrain à bâtir",
            960..=979 => "Echange",
            980..=994 => "Adjudication",
            _ => "Expropriation",
        };
        let local = if nature == "Vente terrain à bâtir" {
            Local::None
        } else {
            match r.below(100) {
                0..=41 => Local::Appartement,
                42..=71 => Local::Maison,
                72..=86 => Local::Dependance,
                87..=91 => Local::Industriel,
                _ => Local::None,
            }
        };
        let commune = self.pick_commune();
        let r = &mut self.rng;
        let c = &COMMUNES[commune];
        let factor = (1.0 + 0.18 * r.normalish()).max(0.4);
        let (surface_bati, pieces, terrain, base_price) = match local {
            Local::Appartement => {
                let s = (55.0 + 25.0 * r.normalish()).clamp(9.0, 250.0) as u64;
                let p = (s / 20 + r.below(2)).clamp(1, 8);
                (Some(s), Some(p), None, s as f64 * c.6)
            }
            Local::Maison => {
                let s = (105.0 + 35.0 * r.normalish()).clamp(30.0, 400.0) as u64;
                let p = (s / 22 + r.below(2)).clamp(2, 12);
                let t = 100 + (r.unit() * r.unit() * 2400.0) as u64;
                (Some(s), Some(p), Some(t), s as f64 * c.6 * 0.85)
            }
            Local::Dependance => (None, Some(0), None, 8_000.0 + 22_000.0 * r.unit()),
            Local::Industriel => {
                let s = 20 + (r.unit() * r.unit() * 980.0) as u64;
                (Some(s), Some(0), None, s as f64 * c.6 * 0.6)
            }
            Local::None => {
                let t = 200 + (r.unit() * r.unit() * 8000.0) as u64;
                (None, None, Some(t), t as f64 * (20.0 + c.6 / 40.0))
            }
        };
        // Prices are usually round: to the hundred euros, in cents.
        let valeur = if r.chance(0.01) {
            None
        } else {
            Some(((base_price * factor / 100.0) as u64).max(1) * 100 * 100)
        };
        let coords = if r.chance(0.02) {
            None
        } else {
            let lon = c.4 + 0.012 * r.normalish();
            let lat = c.5 + 0.008 * r.normalish();
            Some(((lon * 1e6) as i64, (lat * 1e6) as i64))
        };
        let numero = if r.chance(0.1) {
            None
        } else {
            Some(1 + (r.unit() * r.unit() * 180.0) as u64)
        };
        let row = Row {
            mutation: self.mutation,
            day,
            disposition: if r.chance(0.04) { 2 } else { 1 },
            nature,
            valeur,
            numero,
            voie_type: VOIE_TYPES[r.below(VOIE_TYPES.len() as u64) as usize],
            voie_name: VOIE_NAMES[r.skewed(VOIE_NAMES.len())],
            commune,
            local,
            surface_bati,
            pieces,
            terrain,
            coords,
        };
        // A flat or house sold with its parking space: a second row, same mutation and price.
        if matches!(local, Local::Appartement | Local::Maison) && r.chance(0.25) {
            self.pending = Some(Row {
                local: Local::Dependance,
                surface_bati: None,
                pieces: Some(0),
                terrain: None,
                ..row
            });
        }
        Some(row)
    }

    /// Renders `row` into the cell scratch space.
    fn fill_cells(&mut self, row: &Row) {
        let c = &COMMUNES[row.commune];
        let (cells, ends) = (&mut self.cells, &mut self.ends);
        cells.clear();
        ends.clear();
        let mut end = |cells: &mut Vec<u8>| ends.push(cells.len());
        push_i32(cells, self.spec.year);
        cells.push(b'-');
        push_u64(cells, row.mutation);
        end(cells);
        let (y, m, d) = civil_from_days(self.first_day + row.day);
        push_u64(cells, y as u64);
        cells.push(b'-');
        super::text::push_padded(cells, m as u64, 2);
        cells.push(b'-');
        super::text::push_padded(cells, d as u64, 2);
        end(cells);
        push_u64(cells, row.disposition);
        end(cells);
        cells.extend_from_slice(row.nature.as_bytes());
        end(cells);
        if let Some(v) = row.valeur {
            push_fixed(cells, v, 2);
        }
        end(cells);
        if let Some(n) = row.numero {
            push_u64(cells, n);
        }
        end(cells);
        cells.extend_from_slice(row.voie_type.as_bytes());
        cells.push(b' ');
        cells.extend_from_slice(row.voie_name.as_bytes());
        end(cells);
        for s in [c.1, c.2, c.0, c.3, row.local.text()] {
            cells.extend_from_slice(s.as_bytes());
            end(cells);
        }
        for v in [row.surface_bati, row.pieces, row.terrain] {
            if let Some(v) = v {
                push_u64(cells, v);
            }
            end(cells);
        }
        if let Some((lon, lat)) = row.coords {
            push_fixed_signed(cells, lon, 6);
            end(cells);
            push_fixed_signed(cells, lat, 6);
            end(cells);
        } else {
            end(cells);
            end(cells);
        }
    }

    fn cells(&self) -> impl Iterator<Item = &[u8]> {
        let cells = &self.cells;
        self.ends.iter().scan(0, move |start, &e| {
            let s = &cells[*start..e];
            *start = e;
            Some(s)
        })
    }

    /// Appends the next CSV record (no newline); `false` at the end. Cells are quoted only
    /// when they need it (none of ours do: DVF itself writes `.` where a comma would be).
    pub fn next_csv_into(&mut self, out: &mut Vec<u8>) -> bool {
        let Some(row) = self.next_row() else {
            return false;
        };
        self.fill_cells(&row);
        for (i, cell) in self.cells().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            if cell
                .iter()
                .any(|&b| matches!(b, b',' | b'"' | b'\n' | b'\r'))
            {
                out.push(b'"');
                for &b in cell {
                    if b == b'"' {
                        out.push(b'"');
                    }
                    out.push(b);
                }
                out.push(b'"');
            } else {
                out.extend_from_slice(cell);
            }
        }
        true
    }
}

fn push_i32(out: &mut Vec<u8>, v: i32) {
    if v < 0 {
        out.push(b'-');
    }
    push_u64(out, v.unsigned_abs() as u64);
}

impl DocSource for Transactions {
    fn next_into(&mut self, out: &mut Vec<u8>) -> Result<Option<Item>, CorpusError> {
        let Some(row) = self.next_row() else {
            return Ok(None);
        };
        self.fill_cells(&row);
        self.to_json
            .write(self.cells(), out)
            .map_err(|e| CorpusError::Invalid(format!("transactions generator: {e}")))?;
        Ok(Some(Item::Doc))
    }

    fn len_hint(&self) -> Option<u64> {
        Some(self.spec.docs - self.produced)
    }

    fn describe(&self) -> String {
        format!(
            "transactions (seed {}, {} rows)",
            self.spec.seed, self.spec.docs
        )
    }
}
