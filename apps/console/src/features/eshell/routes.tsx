/** The Shell工具 route (/slurm-template/eshell): its own group, so xterm.js stays out of every other route's chunks. */
export { EshellPage } from './eshell-page';
