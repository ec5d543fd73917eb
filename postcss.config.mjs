// Tailwind CSS v4 through PostCSS, as Next.js expects.
export default {
  plugins: { '@tailwindcss/postcss': {} },
};
