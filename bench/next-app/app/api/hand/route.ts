export { GET, OPTIONS } from '../../../lib/hand-written';
