//! Aligned plain-text tables for the terminal.

/// A table of rows under a header, printed with aligned columns.
pub struct Table {
    header: Vec<String>,
    show_header: bool,
    rows: Vec<Vec<String>>,
    right: Vec<bool>,
}

impl Table {
    /// A table with these column titles.
    pub fn new(header: &[String]) -> Table {
        Table { header: header.to_vec(), show_header: true, rows: Vec::new(), right: vec![false; header.len()] }
    }

    /// A table of `columns` columns without a header line.
    pub fn headless(columns: usize) -> Table {
        Table {
            header: vec![String::new(); columns],
            show_header: false,
            rows: Vec::new(),
            right: vec![false; columns],
        }
    }

    /// Aligns a column to the right (numbers).
    pub fn right(mut self, column: usize) -> Table {
        if let Some(flag) = self.right.get_mut(column) {
            *flag = true;
        }
        self
    }

    /// Adds a row; missing cells are blank, extra cells are dropped.
    pub fn row(&mut self, cells: Vec<String>) {
        let mut cells = cells;
        cells.resize(self.header.len(), String::new());
        self.rows.push(cells);
    }

    /// The table as text, two spaces between columns, no trailing blanks.
    pub fn render(&self, indent: &str) -> String {
        let width = |s: &str| s.chars().count();
        let mut widths: Vec<usize> = self.header.iter().map(|h| if self.show_header { width(h) } else { 0 }).collect();
        for row in &self.rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(width(cell));
            }
        }
        let mut out = String::new();
        let header = self.show_header.then_some(&self.header);
        for row in header.into_iter().chain(&self.rows) {
            let mut line = String::from(indent);
            for (i, cell) in row.iter().enumerate() {
                let pad = widths[i] - width(cell);
                if i > 0 {
                    line.push_str("  ");
                }
                if self.right[i] {
                    line.push_str(&" ".repeat(pad));
                    line.push_str(cell);
                } else {
                    line.push_str(cell);
                    line.push_str(&" ".repeat(pad));
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
}

/// "—" for unknown values.
pub fn or_dash<T: ToString>(value: Option<T>) -> String {
    value.map_or_else(|| "—".to_owned(), |v| v.to_string())
}

/// kHz as whole MHz.
pub fn mhz(khz: Option<u64>) -> String {
    or_dash(khz.map(|k| (k + 500) / 1000))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligns_columns() {
        let mut t = Table::new(&["CPU".into(), "Governor".into()]).right(0);
        t.row(vec!["0".into(), "powersave".into()]);
        t.row(vec!["12".into()]);
        assert_eq!(t.render(""), "CPU  Governor\n  0  powersave\n 12\n");
        assert_eq!(mhz(Some(1_499_600)), "1500");
        assert_eq!(mhz(None), "—");
    }
}
