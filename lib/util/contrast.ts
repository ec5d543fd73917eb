// WCAG 2.x contrast for an organization's brand colour: the text on a button of that colour is white when white is
// readable on it (4.5:1, success criterion 1.4.3), else black. An admin picks any colour; the page stays legible.

/** Relative luminance of a #rrggbb colour (WCAG 2.x definition), or undefined for anything else. */
function relativeLuminance(hex: string): number | undefined {
  const match = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex.trim());
  if (!match) return undefined;
  const [r, g, b] = match.slice(1).map((part) => {
    const channel = Number.parseInt(part, 16) / 255;
    return channel <= 0.04045 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** Black: with white, one of the two always reaches at least 4.58:1 on any colour. */
export const DARK_TEXT = '#000000';

/** The text colour for a surface of `background`: white when it reaches 4.5:1 there, else black. */
export function readableTextOn(background: string): string {
  const luminance = relativeLuminance(background);
  if (luminance === undefined) return '#ffffff';
  return 1.05 / (luminance + 0.05) >= 4.5 ? '#ffffff' : DARK_TEXT;
}

function contrastWithWhite(hex: string): number | undefined {
  const luminance = relativeLuminance(hex);
  return luminance === undefined ? undefined : 1.05 / (luminance + 0.05);
}

/**
 * The brand colour as a link colour on the card's white: the colour itself when it reaches 4.5:1 there, else the
 * same hue darkened just enough (links in a brand's orange or yellow stay readable).
 */
export function readableOnWhite(color: string): string {
  const contrast = contrastWithWhite(color);
  if (contrast === undefined || contrast >= 4.5) return color;
  const [r, g, b] = [1, 3, 5].map((start) => Number.parseInt(color.trim().slice(start, start + 2), 16)) as [number, number, number];
  for (let keep = 0.95; keep > 0; keep -= 0.05) {
    const darker = `#${[r, g, b].map((channel) => Math.round(channel * keep).toString(16).padStart(2, '0')).join('')}`;
    if ((contrastWithWhite(darker) ?? 0) >= 4.5) return darker;
  }
  return DARK_TEXT;
}
