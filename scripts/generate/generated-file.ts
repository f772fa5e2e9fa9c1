export interface GeneratedFile {
  /** File name inside generated/. */
  name: string;
  text: string;
}
