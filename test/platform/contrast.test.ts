// A brand colour never makes a button unreadable: white text where it reaches 4.5:1, dark text elsewhere.
import { describe, expect, it } from 'vitest';
import { DARK_TEXT, readableOnWhite, readableTextOn } from '../../lib/util/contrast';

describe('readable text on a brand colour (WCAG 1.4.3)', () => {
  it('keeps white on dark colours and turns dark on light or mid-tone ones', () => {
    expect(readableTextOn('#3346d3')).toBe('#ffffff'); // Portico's own primary
    expect(readableTextOn('#1e3a8a')).toBe('#ffffff');
    expect(readableTextOn('#d9480f')).toBe(DARK_TEXT); // white reaches only 4.3:1 here
    expect(readableTextOn('#ffd43b')).toBe(DARK_TEXT);
    expect(readableTextOn('not a colour')).toBe('#ffffff');
  });
});

/** The WCAG contrast of a #rrggbb colour with white, computed apart from the code under test. */
function contrastWithWhite(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((start) => {
    const channel = Number.parseInt(hex.slice(start, start + 2), 16) / 255;
    return channel <= 0.04045 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 1.05 / (0.2126 * r + 0.7152 * g + 0.0722 * b + 0.05);
}

describe('a brand colour as a link on the white card (WCAG 1.4.3)', () => {
  it('keeps a readable colour as it is and darkens one that is not, just enough', () => {
    expect(readableOnWhite('#3346d3')).toBe('#3346d3');
    for (const brand of ['#d9480f', '#ffd43b', '#12b886', '#ffffff']) {
      const link = readableOnWhite(brand);
      expect(contrastWithWhite(link), brand).toBeGreaterThanOrEqual(4.5);
      expect(link).not.toBe(DARK_TEXT);
    }
    expect(readableOnWhite('not a colour')).toBe('not a colour');
  });
});
