export { GET, OPTIONS } from '../../../lib/hand-written';

export const runtime = 'edge';
