import { getDocument, VerbosityLevel } from 'pdfjs-dist/legacy/build/pdf.mjs';

/**
 * Parses bytes as PDF with Mozilla's pdf.js and returns every page's text, a line break where the page breaks a line.
 * Throws when the bytes are not a PDF, so a parse is itself an assertion.
 */
export async function pdfText(bytes: Uint8Array): Promise<{ pages: number; text: string }> {
  const doc = await getDocument({
    data: new Uint8Array(bytes),
    verbosity: VerbosityLevel.ERRORS,
    isEvalSupported: false,
    useSystemFonts: false,
  }).promise;
  try {
    let text = '';
    for (let n = 1; n <= doc.numPages; n++) {
      const content = await (await doc.getPage(n)).getTextContent();
      for (const item of content.items) if ('str' in item) text += item.str + (item.hasEOL ? '\n' : '');
      text += '\n';
    }
    return { pages: doc.numPages, text };
  } finally {
    await doc.destroy();
  }
}
