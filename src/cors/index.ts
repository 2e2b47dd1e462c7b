export * from './standalone.js';
