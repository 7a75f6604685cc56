/**
 * The inline style and script of the HTML run report (`strata sim --html`): the page needs
 * no network, so everything it shows or does is in these two strings.
 */

export const REPORT_CSS = `
body { font: 13px/1.4 system-ui, sans-serif; margin: 16px 24px; color: #1d1d1f; }
h1 { font-size: 18px; margin: 0 0 4px; }
h2 { font-size: 15px; margin: 20px 0 6px; }
.verdict-pass { color: #1a7f37; } .verdict-fail { color: #cf222e; }
.meta { color: #57606a; } code { font: 12px ui-monospace, monospace; }
table.checks { border-collapse: collapse; width: 100%; }
table.checks td { border-top: 1px solid #d0d7de; padding: 4px 8px; vertical-align: top; }
tr.check { cursor: pointer; } tr.check.selected { background: #fff8c5; }
tr.check td.verdict { font-weight: 600; width: 3em; }
tr.check.fail td.verdict { color: #cf222e; } tr.check.pass td.verdict { color: #1a7f37; }
.first-failure { border: 2px solid #cf222e; border-radius: 6px; padding: 8px 12px; background: #fff5f5; }
.first-failure ol { margin: 4px 0; padding-left: 20px; }
#status { font-weight: 600; margin: 6px 0; }
svg.timeline { display: block; background: #fff; border: 1px solid #d0d7de; }
svg.timeline text { font: 11px system-ui, sans-serif; fill: #1d1d1f; }
svg.timeline .lane-bg:nth-of-type(odd) { fill: #f6f8fa; }
svg.timeline .axis { stroke: #afb8c1; }
.mark.crash, .mark.power_loss { fill: #cf222e; } .mark.power_loss { fill: #82071e; }
.mark.restart, .mark.start { fill: #1a7f37; } .mark.stop { fill: #6e7781; }
.down { fill: #ffebe9; } .partition { fill: #fb8f44; opacity: .7; }
.mark.push-acked { stroke: #2da44e; } .mark.push-refused { stroke: #d4a72c; stroke-width: 2; }
.mark.push-unknown { stroke: #8c959f; } .mark.push-sent { stroke: #57606a; }
.mark.block-cut { fill: #0969da; } .mark.block-uploaded { fill: #8250df; }
.mark.block-deleted { fill: #24292f; } .mark.other { fill: #57606a; }
.span { fill: #54aeff; opacity: .5; }
.violation { fill: none; stroke: #cf222e; stroke-width: 2.5; }
.violation.dim { stroke: #cf222e; opacity: .15; }
.failure-window { fill: #cf222e; opacity: .08; stroke: #cf222e; stroke-dasharray: 4 3; }
.failure-window.dim { opacity: 0; }
.violations li.dim { display: none; }
.legend span { margin-right: 14px; white-space: nowrap; }
.legend i { display: inline-block; width: 10px; height: 10px; margin-right: 4px; vertical-align: middle; }
`;

/**
 * Selecting a check (a click on its row; the first failure's check when the page opens)
 * highlights its violations on the timeline and in the lists and dims the others'. The
 * status line says what is highlighted, and `data-script` tells a test the script ran.
 */
export const REPORT_JS = `
(function () {
  var body = document.body;
  function select(name) {
    var count = 0;
    document.querySelectorAll('[data-check]').forEach(function (el) {
      var on = el.getAttribute('data-check') === name;
      el.classList.toggle('dim', !on && el.tagName !== 'TR');
      if (el.tagName === 'TR') el.classList.toggle('selected', on);
      if (on && el.classList.contains('violation')) count++;
    });
    body.setAttribute('data-selected', name);
    var status = document.getElementById('status');
    if (status)
      status.textContent = name === ''
        ? 'every check passed: nothing to highlight'
        : 'highlighting ' + count + ' event(s) of check ' + name;
  }
  document.querySelectorAll('tr.check.fail').forEach(function (row) {
    row.addEventListener('click', function () { select(row.getAttribute('data-check')); });
  });
  select(body.getAttribute('data-first-check') || '');
  body.setAttribute('data-script', 'ran');
})();
`;
