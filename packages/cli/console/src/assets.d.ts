// esbuild bundles the stylesheet imported by main.tsx into app.css beside app.js.
declare module "*.css";
