import type { WorkingCopy } from '@tidemark/testing';

const folders = 10;
const filesPerFolder = 10;
const objectsPerFile = 100;

function fileText(file: number, changed?: { index: number; value: string }): string {
  const documents: string[] = [];
  for (let index = 0; index < objectsPerFile; index += 1) {
    const value = changed?.index === index ? changed.value : `${file}-${index}`;
    documents.push(`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-${file}-${index}\n  namespace: ns-${file % folders}\ndata:\n  value: "${value}"\n`);
  }
  return documents.join('---\n');
}

function pathOf(file: number): string {
  return `folder-${file % folders}/file-${file}.yaml`;
}

/** largeRepositoryShape describes the generated repository: 10 folders × 10 files × 100 objects. */
export const largeRepositoryShape = {
  objects: folders * filesPerFolder * objectsPerFile,
  objectKey: (file: number, index: number) => `core/ConfigMap/ns-${file % folders}/cm-${file}-${index}`,
  /** changeOne returns the new text of one file where one object's value changed. */
  changeOne: (file: number, index: number, value: string) => ({ path: pathOf(file), text: fileText(file, { index, value }) }),
};

/** generateLargeRepository writes the 10,000 objects into a working copy (not committed). */
export async function generateLargeRepository(copy: WorkingCopy): Promise<void> {
  const files = Array.from({ length: folders * filesPerFolder }, (_, file) => file);
  await Promise.all(files.map((file) => copy.write(pathOf(file), fileText(file))));
}
