// A brand colour never makes a button unreadable: white text where it reaches 4.5:1, dark text elsewhere.
import { describe, expect, it } from 'vitest';
import { DARK_TEXT, readableTextOn } from '../../lib/util/contrast';

describe('readable text on a brand colour (WCAG 1.4.3)', () => {
  it('keeps white on dark colours and turns dark on light or mid-tone ones', () => {
    expect(readableTextOn('#3346d3')).toBe('#ffffff'); // Portico's own primary
    expect(readableTextOn('#1e3a8a')).toBe('#ffffff');
    expect(readableTextOn('#d9480f')).toBe(DARK_TEXT); // white reaches only 4.3:1 here
    expect(readableTextOn('#ffd43b')).toBe(DARK_TEXT);
    expect(readableTextOn('not a colour')).toBe('#ffffff');
  });
});
