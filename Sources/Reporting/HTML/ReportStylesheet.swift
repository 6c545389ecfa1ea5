/// The report's CSS: light by default, dark under `prefers-color-scheme: dark`, plain for print.
///
/// Charts draw axes and text in `currentColor`, so only the page colours change between schemes.
package enum ReportStylesheet {
    package static let css = """
    :root { color-scheme: light dark; --bg: #ffffff; --fg: #1d1f23; --muted: #5b616b; --rule: #d9dce1; --card: #f5f6f8; --bad: #b3261e; --good: #1b6e3a; }
    @media (prefers-color-scheme: dark) {
      :root { --bg: #15171a; --fg: #e6e8eb; --muted: #a2a8b1; --rule: #3a3f46; --card: #1f2226; --bad: #ff8a80; --good: #7fd39b; }
    }
    * { box-sizing: border-box; }
    body { margin: 0 auto; max-width: 1180px; padding: 24px 28px 48px; background: var(--bg); color: var(--fg);
      font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; }
    h1 { font-size: 26px; margin: 0 0 2px; }
    h2 { font-size: 19px; margin: 34px 0 10px; padding-bottom: 4px; border-bottom: 1px solid var(--rule); }
    .sub { color: var(--muted); margin: 0; }
    .warning { border: 2px solid var(--bad); color: var(--bad); padding: 10px 14px; border-radius: 6px; margin: 16px 0; }
    .verdicts { list-style: none; padding: 0; margin: 0; display: grid; gap: 10px; grid-template-columns: repeat(auto-fit, minmax(250px, 1fr)); }
    .verdicts li { background: var(--card); border-radius: 8px; padding: 12px 14px; border-left: 6px solid var(--swatch, var(--rule)); }
    .verdicts strong { display: block; font-size: 16px; margin-bottom: 2px; }
    .decision p { margin: 0 0 4px; }
    .decision p.ship { font-size: 17px; font-weight: 600; }
    .decision-grid { display: grid; gap: 16px; grid-template-columns: minmax(0, 1fr) minmax(0, 480px); align-items: start; margin-bottom: 10px; }
    @media (max-width: 900px) { .decision-grid { grid-template-columns: minmax(0, 1fr); } }
    .decision-table { font-size: 14px; }
    .decision-table th, .decision-table td { padding: 4px 6px; white-space: nowrap; }
    .decision-table th { font-weight: 600; vertical-align: bottom; white-space: normal; }
    .decision-table tr.chosen td { background: var(--card); font-weight: 600; }
    #decision h2 { margin-top: 18px; }
    /* A phone: each strategy of the decision table is a card of labelled values, no sideways scrolling. */
    @media (max-width: 640px) {
      body { padding: 16px 14px 40px; }
      .decision-table thead { display: none; }
      .decision-table, .decision-table tbody, .decision-table tr, .decision-table td { display: block; width: 100%; }
      .decision-table tr { border: 1px solid var(--rule); border-radius: 8px; margin: 0 0 8px; padding: 4px 0; }
      .decision-table td { display: flex; justify-content: space-between; gap: 12px; border-bottom: 0; padding: 1px 12px; white-space: normal; text-align: right; }
      .decision-table td:first-child { display: block; text-align: left; font-weight: 600; padding-bottom: 3px; }
      .decision-table td::before { content: attr(data-label); color: var(--muted); font-weight: normal; text-align: left; }
      .decision-table td:first-child::before { content: none; }
      .decision-table tr.chosen { border: 2px solid var(--good); }
      /* The table straight after the decision lines, the trade-off picture after it. */
      #decision { display: flex; flex-direction: column; }
      #decision .decision-grid { display: contents; }
      #decision figure { order: 1; margin-top: 8px; }
      #decision .world { order: 2; margin-top: 8px; }
    }
    .badge { margin-left: 6px; padding: 0 5px; border-radius: 4px; background: var(--good); color: var(--bg); font-size: 11px; font-weight: 600; }
    h3 { font-size: 16px; margin: 18px 0 6px; }
    .charts { display: grid; gap: 18px; grid-template-columns: repeat(2, minmax(0, 1fr)); }
    .charts figure.wide { grid-column: 1 / -1; }
    @media (max-width: 900px) { .charts { grid-template-columns: minmax(0, 1fr); } }
    .scroll { overflow-x: auto; }
    figure { margin: 0; background: var(--card); border-radius: 8px; padding: 8px 8px 4px; break-inside: avoid; page-break-inside: avoid; }
    figure svg { width: 100%; height: auto; display: block; }
    figcaption { color: var(--muted); font-size: 13px; padding: 2px 6px 6px; }
    table { border-collapse: collapse; width: 100%; font-size: 14px; font-variant-numeric: tabular-nums; }
    th, td { padding: 4px 10px; border-bottom: 1px solid var(--rule); text-align: right; vertical-align: top; }
    th:first-child, td:first-child { text-align: left; }
    thead th { border-bottom: 2px solid var(--rule); }
    td.best { color: var(--good); font-weight: 600; }
    td.bad { color: var(--bad); font-weight: 600; }
    .swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 6px; }
    dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 18px; margin: 0; }
    dl.facts dt { color: var(--muted); }
    dl.facts dd { margin: 0; word-break: break-all; }
    pre { background: var(--card); padding: 10px; border-radius: 6px; overflow-x: auto; font-size: 12px; white-space: pre-wrap; }
    footer { margin-top: 36px; color: var(--muted); font-size: 12px; }
    @media print {
      :root { --bg: #ffffff; --fg: #000000; --muted: #444444; --rule: #bbbbbb; --card: #ffffff; }
      body { max-width: none; padding: 0; font-size: 11pt; }
      .charts { grid-template-columns: 1fr 1fr; }
      .scroll { overflow: visible; }
      figure { border: 1px solid var(--rule); }
      h2 { break-after: avoid; page-break-after: avoid; }
    }
    """

    /// The start of a report page, up to and including `<body>`: the XHTML-compatible `html`
    /// element, the character set, both colour schemes, `title` and this stylesheet inline; with
    /// `viewport`, also the mobile viewport.
    package static func pageStart(title: String, viewport: Bool = false) -> String {
        var html = "<!DOCTYPE html>\n" + Markup.open("html", [("lang", "en"), ("xmlns", "http://www.w3.org/1999/xhtml")]) + "\n<head>\n"
        html += Markup.empty("meta", [("charset", "utf-8")]) + "\n"
        if viewport { html += Markup.empty("meta", [("name", "viewport"), ("content", "width=device-width, initial-scale=1")]) + "\n" }
        html += Markup.empty("meta", [("name", "color-scheme"), ("content", "light dark")]) + "\n"
        html += Markup.element("title", text: title) + "\n<style>\n" + css + "\n</style>\n</head>\n<body>\n"
        return html
    }

    /// The end of a report page, after `pageStart`.
    package static let pageEnd = "</body>\n</html>\n"
}
