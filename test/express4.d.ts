/** `express4` is Express 4 from the registry under another name (package.json); Express 5's typings fit what the tests use of it. */
declare module 'express4' {
  import express from 'express';
  export default express;
}
