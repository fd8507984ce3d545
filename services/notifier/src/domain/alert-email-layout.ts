/**
 * The HTML part of the alert e-mails, laid out the way mail clients render it: tables for
 * layout, every style inline (clients drop <style> and external CSS), a bulletproof button, and
 * the colours of the account page (packages/account-page/src/styles.css).
 */

const FONT = "-apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif";
const COLOURS = {
  ink: '#111827',
  muted: '#4b5563',
  line: '#d1d5db',
  page: '#f3f4f6',
  brand: '#1d4ed8',
  brandDark: '#1e3a8a',
  danger: '#b91c1c',
};

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => HTML_ESCAPES[character] ?? character);
}

export interface AlertEmailLayout {
  /** BRAND_NAME, in the header. */
  brandName: string;
  subject: string;
  /** `Low balance alert` / `Zero balance alert`. */
  heading: string;
  /** Whether the pool is empty (the heading's accent turns red). */
  empty: boolean;
  /** Paragraphs before the table. */
  paragraphs: string[];
  /** The pool: one row, named by its lowest-id product, with the products that share it; undefined for an e-mail about no pool. */
  pool: { name: string; shared: string | undefined; credits: string } | undefined;
  /** Paragraph after the table. */
  closing: string;
  buttonLabel: string;
  url: string;
  /** The account page (a link under the button when the button goes elsewhere). */
  accountUrl: string;
  /** The account page's alert settings (a link under the button). */
  settingsUrl: string;
  footer: string;
}

const paragraph = (text: string, style = ''): string =>
  `<p style="margin:0 0 14px;font-size:16px;line-height:24px;color:${COLOURS.ink};${style}">${escapeHtml(text)}</p>`;

function poolTable(layout: AlertEmailLayout): string {
  if (layout.pool === undefined) return '';
  const cell = `padding:8px 12px;border-bottom:1px solid ${COLOURS.line};font-size:15px;line-height:20px;`;
  const shared = layout.pool.shared
    ? `<br><span style="font-size:13px;line-height:18px;color:${COLOURS.muted};">${escapeHtml(layout.pool.shared)}</span>`
    : '';
  return [
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="border-collapse:collapse;margin:4px 0 18px;border:1px solid ${COLOURS.line};">`,
    `<tr><th align="left" style="${cell}color:${COLOURS.muted};font-size:13px;background:${COLOURS.page};">Balance</th><th align="right" style="${cell}color:${COLOURS.muted};font-size:13px;background:${COLOURS.page};">Credits left</th></tr>`,
    `<tr><td style="${cell}color:${COLOURS.ink};"><strong>${escapeHtml(layout.pool.name)}</strong>${shared}</td>` +
      `<td align="right" valign="top" style="${cell}color:${layout.empty ? COLOURS.danger : COLOURS.ink};font-weight:700;white-space:nowrap;">${escapeHtml(layout.pool.credits)}</td></tr>`,
    '</table>',
  ].join('\n');
}

function button(layout: AlertEmailLayout): string {
  const url = escapeHtml(layout.url);
  return [
    '<table role="presentation" cellpadding="0" cellspacing="0" style="margin:6px 0 18px;">',
    `<tr><td style="border-radius:8px;background:${COLOURS.brand};">`,
    `<a href="${url}" style="display:inline-block;padding:12px 22px;font-family:${FONT};font-size:16px;font-weight:600;color:#ffffff;text-decoration:none;border-radius:8px;">${escapeHtml(layout.buttonLabel)}</a>`,
    '</td></tr></table>',
    `<p style="margin:0 0 6px;font-size:13px;line-height:19px;color:${COLOURS.muted};">Or open this address: <a href="${url}" style="color:${COLOURS.brand};">${url}</a></p>`,
    ...(layout.accountUrl === layout.url
      ? []
      : [
          `<p style="margin:0 0 6px;font-size:13px;line-height:19px;color:${COLOURS.muted};">Your balances and usage: <a href="${escapeHtml(layout.accountUrl)}" style="color:${COLOURS.brand};">Open your account page</a></p>`,
        ]),
    `<p style="margin:0 0 6px;font-size:13px;line-height:19px;color:${COLOURS.muted};">Alert settings: <a href="${escapeHtml(layout.settingsUrl)}" style="color:${COLOURS.brand};">${escapeHtml(layout.settingsUrl)}</a></p>`,
  ].join('\n');
}

/** The whole HTML document of one alert. */
export function renderAlertHtml(layout: AlertEmailLayout): string {
  const accent = layout.empty ? COLOURS.danger : COLOURS.brand;
  return [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(layout.subject)}</title></head>`,
    `<body style="margin:0;padding:0;background:${COLOURS.page};">`,
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:${COLOURS.page};"><tr><td align="center" style="padding:24px 12px;">`,
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:560px;background:#ffffff;border:1px solid ${COLOURS.line};border-radius:12px;font-family:${FONT};">`,
    `<tr><td style="background:${COLOURS.brandDark};color:#ffffff;padding:14px 24px;font-size:16px;font-weight:700;border-radius:12px 12px 0 0;">${escapeHtml(layout.brandName)}</td></tr>`,
    `<tr><td style="padding:24px 24px 8px;border-top:4px solid ${accent};">`,
    `<h1 style="margin:0 0 16px;font-size:22px;line-height:28px;color:${accent};">${escapeHtml(layout.heading)}</h1>`,
    paragraph('Hello,'),
    ...layout.paragraphs.map((text) => paragraph(text)),
    poolTable(layout),
    paragraph(layout.closing),
    button(layout),
    '</td></tr>',
    `<tr><td style="padding:12px 24px 20px;border-top:1px solid ${COLOURS.line};font-size:13px;line-height:19px;color:${COLOURS.muted};">${escapeHtml(layout.footer)}</td></tr>`,
    '</table>',
    '</td></tr></table>',
    '</body></html>',
  ].join('\n');
}
